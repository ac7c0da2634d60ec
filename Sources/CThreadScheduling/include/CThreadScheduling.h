// What SystemInfo needs from the kernel's scheduler that Swift cannot call: sched_setattr and
// sched_getattr have no glibc wrapper on Debian bookworm, and syscall(2) is variadic.
#ifndef CTHREADSCHEDULING_H
#define CTHREADSCHEDULING_H

#include <stdint.h>

/// Sets thread `tid` (a kernel thread id) to the normal policy with nice value `nice` and a
/// scheduler slice of `slice_ns` nanoseconds (Linux 6.12 and later keep the slice; earlier
/// kernels ignore it). Returns 0, or -1 with errno set.
int cts_set_thread_nice_and_slice(int32_t tid, int32_t nice, uint64_t slice_ns);

/// The nice value and slice of thread `tid` as the kernel reports them (`slice_ns` 0 where the
/// kernel keeps none). Returns 0, or -1 with errno set.
int cts_thread_nice_and_slice(int32_t tid, int32_t *nice, uint64_t *slice_ns);

#endif
