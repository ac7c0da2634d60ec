#ifndef C_ZLIB_SHIM_H
#define C_ZLIB_SHIM_H
#include <zlib.h>

// deflateInit2 and inflateInit2 are macros that pass the header version and
// struct size; Swift cannot import macros with arguments, so wrap them.
static inline int CZlib_deflateInit2(z_streamp strm, int level, int method,
                                     int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}

static inline int CZlib_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
