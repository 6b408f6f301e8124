/*
 * What the yardstick libraries that Sluice's benchmarks call through java.lang.foreign (sluice_paired.c,
 * sluice_peer.c) share: a monotonic clock, and the convention that a function returns a negative CUresult when a
 * driver call fails.
 */
#ifndef SLUICE_LIB_H
#define SLUICE_LIB_H

#include <cuda.h>
#include <time.h>

static inline long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Returns -CUresult from the calling function when `call` fails. */
#define TRY(call)                       \
    do {                                \
        CUresult r_ = (call);           \
        if (r_ != CUDA_SUCCESS) return -(long long)r_; \
    } while (0)

#endif
