/*
 * sluice_paired: the C yardsticks of sluice_native_bench as a shared library, so that the
 * benchmark dev.sluice.benchmarks.cuda.PairedBench can call them from inside the JVM and
 * alternate C and Sluice block by block (or sample by sample) in one process, on one thread.
 *
 * Why: on the GPU machine (a virtual machine) figures move by up to 30 % from one process to
 * the next, so a ratio of two processes' figures cannot decide a 1.3x target. Alternating in
 * one process puts both sides under the same conditions at nearly the same moment.
 *
 * Build (scripts/gpu-run.sh does this):
 *   gcc -O2 -std=gnu11 -shared -fPIC -I/usr/local/cuda/include sluice_paired.c \
 *       -o libsluice_paired.so -L<dir of libcuda.so.1> -l:libcuda.so.1
 *
 * Every function returns a time in nanoseconds, or a negative CUresult when a driver call
 * failed. The kernels come from the caller as PTX (the same text Sluice compiled), so both
 * sides run the same machine code. Everything runs in the device's primary context, which
 * Sluice uses by default too.
 */
#define _GNU_SOURCE
#include "sluice_lib.h"
#include <pthread.h>
#include <stdatomic.h>

static CUdevice dev;
static CUcontext ctx;
static CUmodule mod;
static CUfunction empty5, write_one;
static CUstream stream;
static CUevent event;
static CUdeviceptr p1, p2;
static long long arg_n = 1024;
static float arg_s = 2.5f;
static int arg_k = 7;
static int arg_v;
static void *args5[] = {&p1, &arg_n, &arg_s, &arg_k, &p2}; /* one argument block, reused every call */
static void *args_one[] = {&p1, &arg_v};

/* Loads `ptx` (which holds extern "C" empty5 and write_one) into device `ordinal`'s primary context,
 * and makes a non-blocking stream, a timing-disabled event and two 4 KiB buffers. 0 or -CUresult. */
long long sp_open(int ordinal, const char *ptx) {
    TRY(cuInit(0));
    TRY(cuDeviceGet(&dev, ordinal));
    TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
    TRY(cuCtxSetCurrent(ctx));
    TRY(cuModuleLoadData(&mod, ptx));
    TRY(cuModuleGetFunction(&empty5, mod, "empty5"));
    TRY(cuModuleGetFunction(&write_one, mod, "write_one"));
    TRY(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    TRY(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    TRY(cuMemAlloc(&p1, 4096));
    TRY(cuMemAlloc(&p2, 4096));
    return 0;
}

/* Host time of `n` launches of empty5 (5 arguments) on the stream, which is drained first and not after. */
long long sp_launch5(int n) {
    TRY(cuCtxSetCurrent(ctx));
    TRY(cuStreamSynchronize(stream));
    long long t0 = now_ns();
    for (int i = 0; i < n; i++) {
        TRY(cuLaunchKernel(empty5, 1, 1, 1, 1, 1, 1, 0, stream, args5, NULL));
    }
    return now_ns() - t0;
}

/* Time from the first of `n` launches of write_one until the stream has finished them (no events: the
 * tiny-kernel target compares Sluice's futures with C without any). */
long long sp_tiny(int n) {
    TRY(cuCtxSetCurrent(ctx));
    TRY(cuStreamSynchronize(stream));
    long long t0 = now_ns();
    for (int i = 0; i < n; i++) {
        arg_v = i;
        TRY(cuLaunchKernel(write_one, 1, 1, 1, 1, 1, 1, 0, stream, args_one, NULL));
    }
    TRY(cuStreamSynchronize(stream));
    return now_ns() - t0;
}

/* One idle-stream round trip: launch write_one, record the event, spin on cuEventQuery until it is done. */
long long sp_roundtrip(int v) {
    arg_v = v;
    long long t0 = now_ns();
    TRY(cuLaunchKernel(write_one, 1, 1, 1, 1, 1, 1, 0, stream, args_one, NULL));
    TRY(cuEventRecord(event, stream));
    CUresult r;
    while ((r = cuEventQuery(event)) == CUDA_ERROR_NOT_READY) {
    }
    if (r != CUDA_SUCCESS) return -(long long)r;
    return now_ns() - t0;
}

/* "Chain of 8 tiny kernels per chunk", C with 8 stream launches per chunk: time from the first of `chunks` chunks of
 * 8 write_one launches until the stream has finished them. */
long long sp_chain8_stream(int chunks) {
    TRY(cuCtxSetCurrent(ctx));
    TRY(cuStreamSynchronize(stream));
    long long t0 = now_ns();
    for (int c = 0; c < chunks; c++) {
        for (int k = 0; k < 8; k++) {
            arg_v = c * 8 + k;
            TRY(cuLaunchKernel(write_one, 1, 1, 1, 1, 1, 1, 0, stream, args_one, NULL));
        }
    }
    TRY(cuStreamSynchronize(stream));
    return now_ns() - t0;
}

static CUgraph chain8;
static CUgraphExec chain8_exec;
static CUgraphNode chain8_nodes[8];

/* The 8-kernel graph of sp_chain8_graph: write_one nodes chained by dependencies, instantiated once. */
static CUresult chain8_build(void) {
    CUresult r = cuGraphCreate(&chain8, 0);
    if (r != CUDA_SUCCESS) return r;
    CUgraphNode before = NULL;
    for (int k = 0; k < 8; k++) {
        CUDA_KERNEL_NODE_PARAMS p = {0};
        p.func = write_one;
        p.gridDimX = p.gridDimY = p.gridDimZ = 1;
        p.blockDimX = p.blockDimY = p.blockDimZ = 1;
        p.kernelParams = args_one;
        CUgraphNode node;
        r = cuGraphAddKernelNode(&node, chain8, before ? &before : NULL, before ? 1 : 0, &p);
        if (r != CUDA_SUCCESS) return r;
        chain8_nodes[k] = node;
        before = node;
    }
    return cuGraphInstantiateWithFlags(&chain8_exec, chain8, 0);
}

/* The same chunks, C with one cuGraphLaunch of the instantiated 8-kernel graph per chunk (built on the first call,
 * outside the time). */
long long sp_chain8_graph(int chunks) {
    TRY(cuCtxSetCurrent(ctx));
    if (chain8_exec == NULL) {
        TRY(chain8_build());
    }
    TRY(cuStreamSynchronize(stream));
    long long t0 = now_ns();
    for (int c = 0; c < chunks; c++) {
        TRY(cuGraphLaunch(chain8_exec, stream));
    }
    TRY(cuStreamSynchronize(stream));
    return now_ns() - t0;
}

/* The same chunks, C doing what Sluice's repeated work does per chunk: each of the 8 kernel nodes updated with the
 * chunk's argument (cuGraphExecKernelNodeSetParams), then one cuGraphLaunch. */
long long sp_chain8_graph_update(int chunks) {
    TRY(cuCtxSetCurrent(ctx));
    if (chain8_exec == NULL) {
        TRY(chain8_build());
    }
    CUDA_KERNEL_NODE_PARAMS p = {0};
    p.func = write_one;
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args_one; /* the driver copies the argument values at each update */
    TRY(cuStreamSynchronize(stream));
    long long t0 = now_ns();
    for (int c = 0; c < chunks; c++) {
        for (int k = 0; k < 8; k++) {
            arg_v = c * 8 + k;
            TRY(cuGraphExecKernelNodeSetParams(chain8_exec, chain8_nodes[k], &p));
        }
        TRY(cuGraphLaunch(chain8_exec, stream));
    }
    TRY(cuStreamSynchronize(stream));
    return now_ns() - t0;
}

/* ---- What completion costs C: launches with a marker every 32, and a second thread learning completion. ---- */

#define MARKER_EVERY 32
#define MARKER_EVENTS 64
static CUevent markers[MARKER_EVENTS];
static CUstream marker_stream;
static CUdeviceptr counter_device;
static volatile unsigned int *counter_host;
static atomic_int poller_mode;       /* 1: cuEventQuery, 2: the device-written counter */
static atomic_long marker_published; /* the number of the last marker recorded, 0 before any */
static atomic_int poller_stop;
static atomic_long poller_polls;

/* The second thread: spins until told to stop, asking the latest marker as a completion thread would. */
static void *poller(void *unused) {
    (void) unused;
    cuCtxSetCurrent(ctx);
    long polls = 0;
    while (!atomic_load_explicit(&poller_stop, memory_order_acquire)) {
        long k = atomic_load_explicit(&marker_published, memory_order_acquire);
        if (k == 0) continue;
        if (atomic_load_explicit(&poller_mode, memory_order_relaxed) == 1) {
            (void) cuEventQuery(markers[k % MARKER_EVENTS]);
        } else {
            (void) (*counter_host - (unsigned int) k);
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
        }
        polls++;
    }
    atomic_store(&poller_polls, polls);
    return NULL;
}

static CUresult completion_setup(void) {
    if (marker_stream != NULL) return CUDA_SUCCESS;
    for (int i = 0; i < MARKER_EVENTS; i++) {
        CUresult r = cuEventCreate(&markers[i], CU_EVENT_DISABLE_TIMING);
        if (r != CUDA_SUCCESS) return r;
    }
    CUresult r = cuStreamCreate(&marker_stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) return r;
    void *host;
    r = cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP);
    if (r != CUDA_SUCCESS) return r;
    counter_host = (volatile unsigned int *) host;
    *counter_host = 0;
    return cuMemHostGetDevicePointer(&counter_device, host, 0);
}

/* Host time of `n` launches of empty5 with a completion marker every 32 (an event; mode 2 also has the marker stream
 * wait for it and write its number into host-mapped memory, as Sluice's counters do), while a second thread polls:
 * mode 0 none, 1 cuEventQuery of the latest marker, 2 the counter. The stream is drained first and not after. */
long long sp_launch5_completion(int n, int mode) {
    TRY(cuCtxSetCurrent(ctx));
    TRY(completion_setup());
    TRY(cuStreamSynchronize(stream));
    TRY(cuStreamSynchronize(marker_stream));
    atomic_store(&marker_published, 0);
    atomic_store(&poller_stop, 0);
    atomic_store(&poller_mode, mode);
    pthread_t thread;
    if (mode != 0 && pthread_create(&thread, NULL, poller, NULL) != 0) return -999;
    long long t0 = now_ns();
    for (int i = 0; i < n; i++) {
        TRY(cuLaunchKernel(empty5, 1, 1, 1, 1, 1, 1, 0, stream, args5, NULL));
        if ((i + 1) % MARKER_EVERY == 0) {
            long k = (i + 1) / MARKER_EVERY;
            CUevent e = markers[k % MARKER_EVENTS];
            TRY(cuEventRecord(e, stream));
            if (mode == 2) {
                TRY(cuStreamWaitEvent(marker_stream, e, 0));
                TRY(cuStreamWriteValue32(marker_stream, counter_device, (cuuint32_t) k, 0));
            }
            atomic_store_explicit(&marker_published, k, memory_order_release);
        }
    }
    long long t = now_ns() - t0;
    atomic_store_explicit(&poller_stop, 1, memory_order_release);
    if (mode != 0) pthread_join(thread, NULL);
    return t;
}

/* Drains the stream (before a round-trip series) and binds the context to the calling thread. */
long long sp_sync(void) {
    TRY(cuCtxSetCurrent(ctx));
    TRY(cuStreamSynchronize(stream));
    return 0;
}

/* Frees what sp_open made and releases the primary context. */
long long sp_close(void) {
    TRY(cuCtxSetCurrent(ctx));
    TRY(cuStreamSynchronize(stream));
    if (chain8_exec != NULL) {
        TRY(cuGraphExecDestroy(chain8_exec));
        TRY(cuGraphDestroy(chain8));
        chain8_exec = NULL;
    }
    if (marker_stream != NULL) {
        TRY(cuStreamSynchronize(marker_stream));
        TRY(cuStreamDestroy(marker_stream));
        TRY(cuMemFreeHost((void *) counter_host));
        for (int i = 0; i < MARKER_EVENTS; i++) TRY(cuEventDestroy(markers[i]));
        marker_stream = NULL;
    }
    TRY(cuMemFree(p1));
    TRY(cuMemFree(p2));
    TRY(cuEventDestroy(event));
    TRY(cuStreamDestroy(stream));
    TRY(cuModuleUnload(mod));
    TRY(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
