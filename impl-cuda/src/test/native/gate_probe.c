// Which CUDA driver calls wait while streams of the same context wait on the host (cuStreamWaitValue32 on a
// host-mapped flag)? Sluice's host gates depend on the answer (docs/gpu-runs.md, 2026-11-22 03:16 and 03:22:
// module loading and stream creation blocked while a gate was closed).
//
//   gate_probe OP GATED PTX_FILE
//     OP     the call made while GATED streams wait on a closed gate (see ops[] below)
//     GATED  number of streams held by cuStreamWaitValue32 (each also has a kernel queued behind its wait)
//
// Prints one line: "op=... gated=N loading=... connections=... result=returned|BLOCKED ms=...". A call still
// running after 2 s is reported BLOCKED; the gate is then opened and the time until the call returned printed.
// Built and run by impl-cuda/gate-probe.sh on the GPU machine.
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; cuGetErrorName(r_, &n_); \
    fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, n_); exit(2); } } while (0)

static CUcontext ctx;
static CUmodule preloaded;
static CUfunction noop;
static char *ptx;
static volatile int done;
static const char *op;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void run_op(void) {
    if (!strcmp(op, "modload")) {
        CUmodule m;
        CK(cuModuleLoadData(&m, ptx));
        CUfunction f;
        CK(cuModuleGetFunction(&f, m, "noop"));
    } else if (!strcmp(op, "streamcreate")) {
        CUstream s;
        CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    } else if (!strcmp(op, "streamcreateprio")) {
        CUstream s;
        CK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, 0));
    } else if (!strcmp(op, "streamdestroy")) {
        CUstream s;
        CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        CK(cuStreamDestroy(s));
    } else if (!strcmp(op, "eventcreate")) {
        CUevent e;
        CK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    } else if (!strcmp(op, "memalloc")) {
        CUdeviceptr p;
        CK(cuMemAlloc(&p, 1 << 20));
    } else if (!strcmp(op, "memallocfree")) {
        CUdeviceptr p;
        CK(cuMemAlloc(&p, 1 << 20));
        CK(cuMemFree(p));
    } else if (!strcmp(op, "hostalloc")) {
        void *p;
        CK(cuMemHostAlloc(&p, 1 << 20, CU_MEMHOSTALLOC_DEVICEMAP));
    } else if (!strcmp(op, "launchother") || !strcmp(op, "copyother") || !strcmp(op, "allocasyncother")) {
        CUstream s;
        CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        if (!strcmp(op, "launchother")) {
            CK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL));
        } else if (!strcmp(op, "copyother")) {
            CUdeviceptr d;
            CK(cuMemAlloc(&d, 4096));
            static char h[4096];
            CK(cuMemcpyHtoDAsync(d, h, sizeof h, s));
        } else {
            CUdeviceptr d;
            CK(cuMemAllocAsync(&d, 4096, s));
            CK(cuMemFreeAsync(d, s));
        }
        CK(cuStreamSynchronize(s));
    } else {
        fprintf(stderr, "unknown op %s\n", op);
        exit(2);
    }
}

static void *worker(void *arg) {
    (void) arg;
    CK(cuCtxSetCurrent(ctx));
    run_op();
    done = 1;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: gate_probe OP GATED PTX_FILE\n"); return 2; }
    op = argv[1];
    int gated = atoi(argv[2]);
    FILE *f = fopen(argv[3], "rb");
    if (!f) { perror(argv[3]); return 2; }
    ptx = calloc(1, 1 << 20);
    if (fread(ptx, 1, (1 << 20) - 1, f) == 0) { fprintf(stderr, "%s is empty\n", argv[3]); return 2; }
    fclose(f);

    CUdevice dev;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoadData(&preloaded, ptx));
    CK(cuModuleGetFunction(&noop, preloaded, "noop"));
    unsigned *flag;
    CK(cuMemHostAlloc((void **) &flag, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    *flag = 0;
    CUdeviceptr dflag;
    CK(cuMemHostGetDevicePointer(&dflag, flag, 0));
    CUstream *streams = calloc(gated > 0 ? gated : 1, sizeof(CUstream));
    for (int i = 0; i < gated; i++) {
        CK(cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING));
        CK(cuStreamWaitValue32(streams[i], dflag, 1, CU_STREAM_WAIT_VALUE_GEQ));
        CK(cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, streams[i], NULL, NULL));
    }
    usleep(100 * 1000); // let the waits reach the device

    pthread_t t;
    double t0 = now_ms();
    pthread_create(&t, NULL, worker, NULL);
    while (!done && now_ms() - t0 < 2000) usleep(1000);
    int blocked = !done;
    if (blocked) __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
    pthread_join(t, NULL);
    double ms = now_ms() - t0;
    const char *loading = getenv("CUDA_MODULE_LOADING");
    const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    printf("op=%-16s gated=%-3d loading=%-5s connections=%-7s result=%s ms=%.1f\n", op, gated,
           loading ? loading : "-", conn ? conn : "-", blocked ? "BLOCKED" : "returned", ms);
    *flag = 1;
    CK(cuCtxSynchronize());
    return 0;
}
