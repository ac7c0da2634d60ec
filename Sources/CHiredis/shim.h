#ifndef C_HIREDIS_SHIM_H
#define C_HIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#endif
