#ifndef C_NGHTTP2_SHIM_H
#define C_NGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>

// The Glibc module Swift ships leaves out epoll and eventfd; WireProtocol's event loop needs
// them and this is the one C module it owns.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
#endif
