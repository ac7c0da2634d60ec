#define _GNU_SOURCE
#include "CThreadScheduling.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// The kernel's struct sched_attr, first version (48 bytes; the utilization clamps that follow
// in later versions are not used).
struct cts_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

int cts_set_thread_nice_and_slice(int32_t tid, int32_t nice, uint64_t slice_ns) {
    struct cts_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.sched_policy = 0; // SCHED_OTHER
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;
    return (int)syscall(SYS_sched_setattr, tid, &attr, 0);
}

int cts_thread_nice_and_slice(int32_t tid, int32_t *nice, uint64_t *slice_ns) {
    struct cts_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    if (syscall(SYS_sched_getattr, tid, &attr, sizeof attr, 0) != 0) return -1;
    *nice = attr.sched_nice;
    *slice_ns = attr.sched_runtime;
    return 0;
}
