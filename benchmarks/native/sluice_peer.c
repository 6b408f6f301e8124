/*
 * sluice_peer: C's peer copy, cuMemcpyPeerAsync between two devices' primary contexts, as a shared
 * library that dev.sluice.benchmarks.cuda.MultiGpuBench calls through java.lang.foreign, so that C's
 * and Sluice's copies of the same size alternate block by block in one process.
 *
 * Build (scripts/gpu-run.sh does this):
 *   gcc -O2 -std=gnu11 -shared -fPIC -I/usr/local/cuda/include sluice_peer.c \
 *       -o libsluice_peer.so -L<dir of libcuda.so.1> -l:libcuda.so.1
 *
 * Every function returns a time in nanoseconds or 0, or a negative CUresult when a driver call failed.
 * The contexts are the devices' primary contexts, which Sluice uses by default too.
 */
#define _GNU_SOURCE
#include "sluice_lib.h"

static CUcontext src_ctx, dst_ctx;
static CUdeviceptr src_buf, dst_buf;
static CUstream stream;

/* Allocates `bytes` on device `source` and on device `destination`, and a non-blocking stream on the
 * destination. Peer access is enabled (both ways) when `peer` is non-zero and the devices allow it;
 * the caller (Sluice) may have enabled it already, which is not an error. 0 or -CUresult. */
long long pc_open(int source, int destination, long long bytes, int peer) {
    CUdevice s, d;
    TRY(cuInit(0));
    TRY(cuDeviceGet(&s, source));
    TRY(cuDeviceGet(&d, destination));
    TRY(cuDevicePrimaryCtxRetain(&src_ctx, s));
    TRY(cuDevicePrimaryCtxRetain(&dst_ctx, d));
    TRY(cuCtxSetCurrent(src_ctx));
    TRY(cuMemAlloc(&src_buf, (size_t)bytes));
    TRY(cuMemsetD8(src_buf, 7, (size_t)bytes));
    if (peer) {
        CUresult r = cuCtxEnablePeerAccess(dst_ctx, 0);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) return -(long long)r;
    }
    TRY(cuCtxSetCurrent(dst_ctx));
    if (peer) {
        CUresult r = cuCtxEnablePeerAccess(src_ctx, 0);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) return -(long long)r;
    }
    TRY(cuMemAlloc(&dst_buf, (size_t)bytes));
    TRY(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    return 0;
}

/* Host time of `count` copies of `bytes` from the source to the destination device, enqueued back to
 * back on one stream of the destination, up to the return of cuStreamSynchronize. */
long long pc_copies(long long bytes, int count) {
    TRY(cuCtxSetCurrent(dst_ctx));
    long long t0 = now_ns();
    for (int i = 0; i < count; i++) {
        TRY(cuMemcpyPeerAsync(dst_buf, dst_ctx, src_buf, src_ctx, (size_t)bytes, stream));
    }
    TRY(cuStreamSynchronize(stream));
    return now_ns() - t0;
}

/* The first byte of the destination buffer (7 once a copy has landed), to check the copies ran. */
long long pc_check(void) {
    unsigned char b = 0;
    TRY(cuCtxSetCurrent(dst_ctx));
    TRY(cuMemcpyDtoH(&b, dst_buf, 1));
    return b;
}

long long pc_close(void) {
    TRY(cuCtxSetCurrent(dst_ctx));
    TRY(cuStreamDestroy(stream));
    TRY(cuMemFree(dst_buf));
    TRY(cuCtxSetCurrent(src_ctx));
    TRY(cuMemFree(src_buf));
    CUdevice s, d;
    TRY(cuCtxGetDevice(&s));
    TRY(cuCtxSetCurrent(dst_ctx));
    TRY(cuCtxGetDevice(&d));
    TRY(cuDevicePrimaryCtxRelease(s));
    TRY(cuDevicePrimaryCtxRelease(d));
    return 0;
}
