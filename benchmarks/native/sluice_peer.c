/*
 * sluice_peer: C's peer copy, cuMemcpyPeerAsync between two devices' primary contexts, as a shared
 * library that dev.sluice.benchmarks.cuda.MultiGpuBench calls through java.lang.foreign, so that C's
 * and Sluice's copies of the same size alternate block by block in one process; and C's transfers of a pipeline
 * over one device and over two (pc_dma_*), the ceiling of MultiGpuBench's pinned pipeline on the host at hand.
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

/* ---------------------------------------------------------------- the DMA ceiling of a pipeline
 * C's transfers alone over one device or two, as MultiGpuBench's pinned pipeline moves its chunks: `chunks` chunks
 * of `chunk_bytes`, each uploaded from pinned host memory into a device buffer of its lane and downloaded from there
 * into other pinned host memory, chunk i on device i % devices and on lane (i / devices) % DMA_LANES of it (a stream
 * with one device buffer, so a lane's chunks follow each other as a pipeline lane's do). No kernel, no host copy:
 * what the devices' copy engines, their links and the host's memory allow. */
#define DMA_LANES 3
static CUcontext dma_ctx[2];
static CUstream dma_stream[2][DMA_LANES];
static CUdeviceptr dma_dev[2][DMA_LANES];
static unsigned char *dma_in, *dma_out;
static int dma_devices;

/* Opens devices 0 and 1 (their primary contexts), their lanes, and the pinned memory (PORTABLE, as Sluice's). 0 or
 * -CUresult. */
long long pc_dma_open(int devices, long long chunk_bytes, int chunks) {
    TRY(cuInit(0));
    dma_devices = devices;
    for (int d = 0; d < devices; d++) {
        CUdevice dev;
        TRY(cuDeviceGet(&dev, d));
        TRY(cuDevicePrimaryCtxRetain(&dma_ctx[d], dev));
        TRY(cuCtxSetCurrent(dma_ctx[d]));
        for (int l = 0; l < DMA_LANES; l++) {
            TRY(cuStreamCreate(&dma_stream[d][l], CU_STREAM_NON_BLOCKING));
            TRY(cuMemAlloc(&dma_dev[d][l], (size_t)chunk_bytes));
        }
    }
    TRY(cuCtxSetCurrent(dma_ctx[0]));
    TRY(cuMemHostAlloc((void **)&dma_in, (size_t)chunk_bytes * chunks, CU_MEMHOSTALLOC_PORTABLE));
    TRY(cuMemHostAlloc((void **)&dma_out, (size_t)chunk_bytes * chunks, CU_MEMHOSTALLOC_PORTABLE));
    for (long long i = 0; i < chunk_bytes * chunks; i += 4096) dma_in[i] = 3;
    for (long long i = 0; i < chunk_bytes * chunks; i += 4096) dma_out[i] = 0;
    return 0;
}

/* Host time of every chunk up and back down over the first `devices` devices, from the first enqueue to the last
 * lane's cuStreamSynchronize; -CUresult on a failure, -1000 if a chunk did not come back. */
long long pc_dma(int devices, long long chunk_bytes, int chunks) {
    dma_out[0] = 0;
    long long t0 = now_ns();
    for (int i = 0; i < chunks; i++) {
        int d = i % devices, l = (i / devices) % DMA_LANES;
        TRY(cuCtxSetCurrent(dma_ctx[d]));
        TRY(cuMemcpyHtoDAsync(dma_dev[d][l], dma_in + (size_t)i * chunk_bytes, (size_t)chunk_bytes, dma_stream[d][l]));
        TRY(cuMemcpyDtoHAsync(dma_out + (size_t)i * chunk_bytes, dma_dev[d][l], (size_t)chunk_bytes, dma_stream[d][l]));
    }
    for (int d = 0; d < devices; d++) {
        TRY(cuCtxSetCurrent(dma_ctx[d]));
        for (int l = 0; l < DMA_LANES; l++) TRY(cuStreamSynchronize(dma_stream[d][l]));
    }
    long long t = now_ns() - t0;
    return dma_out[0] == 3 && dma_out[(size_t)(chunks - 1) * chunk_bytes] == 3 ? t : -1000;
}

long long pc_dma_close(void) {
    TRY(cuCtxSetCurrent(dma_ctx[0]));
    TRY(cuMemFreeHost(dma_in));
    TRY(cuMemFreeHost(dma_out));
    for (int d = 0; d < dma_devices; d++) {
        CUdevice dev;
        TRY(cuCtxSetCurrent(dma_ctx[d]));
        for (int l = 0; l < DMA_LANES; l++) {
            TRY(cuStreamDestroy(dma_stream[d][l]));
            TRY(cuMemFree(dma_dev[d][l]));
        }
        TRY(cuCtxGetDevice(&dev));
        TRY(cuDevicePrimaryCtxRelease(dev));
    }
    return 0;
}
