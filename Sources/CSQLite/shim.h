#ifndef C_SQLITE_SHIM_H
#define C_SQLITE_SHIM_H
#include <sqlite3.h>
#endif
