#ifndef C_PROTOBUF_C_SHIM_H
#define C_PROTOBUF_C_SHIM_H
#include <protobuf-c/protobuf-c.h>
#endif
