#ifndef C_JPEG_SHIM_H
#define C_JPEG_SHIM_H
#include <stdio.h>
#include <jpeglib.h>
#endif
