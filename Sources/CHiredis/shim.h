#ifndef C_HIREDIS_SHIM_H
#define C_HIREDIS_SHIM_H
#include <hiredis/hiredis.h>

/// The context's error text: Swift sees `errstr` as a 128-tuple of chars, awkward to read.
static inline const char *chiredis_errstr(const redisContext *c) { return c->errstr; }
#endif
