#ifndef C_PNG_SHIM_H
#define C_PNG_SHIM_H
#include <png.h>
#endif
