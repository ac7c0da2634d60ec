#ifndef C_XXHASH_SHIM_H
#define C_XXHASH_SHIM_H
// XXH3, 64 bits: the index files' checksum (see SegmentFormat).
#include <xxhash.h>
#endif
