/*
 * sluice_native_bench: native yardsticks for Sluice, written against the CUDA driver API.
 *
 * Every Sluice figure is reported as a ratio to the figure this program measures on the
 * same machine in the same run. Kernels are compiled at run time with NVRTC, which is
 * loaded with dlopen (libnvrtc.so.13, .12, ...) so that the program links only against
 * libcuda and builds without nvrtc.h.
 *
 * Build:  gcc -O2 -std=gnu11 -I/usr/local/cuda/include sluice_native_bench.c \
 *             -o sluice_native_bench -L/usr/local/cuda/lib64 -lcuda -ldl
 *         (where no libcuda.so link exists, use -l:libcuda.so.1 instead of -lcuda)
 * Run:    ./sluice_native_bench [--quick] [--only NAME[,NAME...]] [--device N]
 *                               [--repeat N] [--max-streams N] [--chunks N]
 *         NAME is one of: launch, event, latency, tiny, bandwidth, overlap.
 *
 * Output: progress on stderr; on stdout one `name=value` line per result (units in the
 * name), then a human-readable table. Any failing CUDA call ends the program with exit
 * status 1 and the error's name.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ errors, timing */

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sluice_native_bench: error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void check(CUresult r, const char *call, int line) {
    if (r == CUDA_SUCCESS) return;
    const char *name = NULL, *text = NULL;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    die("line %d: %s failed: %s (%d): %s", line, call, name ? name : "?", (int)r,
        text ? text : "");
}
#define CK(call) check((call), #call, __LINE__)

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place; returns the p-th percentile (nearest rank), p in [0,100]. */
static double percentile(double *v, int n, double p) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)(p / 100.0 * n + 0.5) - 1;
    if (k < 0) k = 0;
    if (k >= n) k = n - 1;
    return v[k];
}

static double median(double *v, int n) { return percentile(v, n, 50.0); }

/* ------------------------------------------------------------------ results */

typedef struct {
    char name[64];
    double value;
    char what[96];
} Result;

static Result results[128];
static int nresults;

static void result(const char *name, double value, const char *what) {
    if (nresults == (int)(sizeof results / sizeof results[0])) die("too many results");
    Result *r = &results[nresults++];
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->what, sizeof r->what, "%s", what);
    r->value = value;
    printf("%s=%.4f\n", name, value);
    fflush(stdout);
}

/* ------------------------------------------------------------------ NVRTC via dlopen */

typedef int nvrtcResult; /* NVRTC_SUCCESS == 0 */
typedef struct _nvrtcProgram *nvrtcProgram;

static struct {
    void *lib;
    const char *path;
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                          const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*logSize)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*cubinSize)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*ptxSize)(nvrtcProgram, size_t *);
    nvrtcResult (*ptx)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*errorString)(nvrtcResult);
} nvrtc;

static void *nvrtc_sym(const char *name) {
    void *p = dlsym(nvrtc.lib, name);
    if (!p) die("%s has no symbol %s", nvrtc.path, name);
    return p;
}

static void nvrtc_load(void) {
    static const char *names[] = {
        NULL, /* $SLUICE_NVRTC */
        "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
        "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
        "/usr/local/cuda/lib64/libnvrtc.so",
    };
    const char *env = getenv("SLUICE_NVRTC");
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !nvrtc.lib; i++) {
        const char *n = i == 0 ? env : names[i];
        if (!n || !*n) continue;
        nvrtc.lib = dlopen(n, RTLD_NOW | RTLD_LOCAL);
        nvrtc.path = n;
    }
    if (!nvrtc.lib) die("cannot load NVRTC (tried $SLUICE_NVRTC, libnvrtc.so[.13|.12|.11.2])");
    *(void **)&nvrtc.version = nvrtc_sym("nvrtcVersion");
    *(void **)&nvrtc.create = nvrtc_sym("nvrtcCreateProgram");
    *(void **)&nvrtc.compile = nvrtc_sym("nvrtcCompileProgram");
    *(void **)&nvrtc.logSize = nvrtc_sym("nvrtcGetProgramLogSize");
    *(void **)&nvrtc.log = nvrtc_sym("nvrtcGetProgramLog");
    *(void **)&nvrtc.cubinSize = nvrtc_sym("nvrtcGetCUBINSize");
    *(void **)&nvrtc.cubin = nvrtc_sym("nvrtcGetCUBIN");
    *(void **)&nvrtc.ptxSize = nvrtc_sym("nvrtcGetPTXSize");
    *(void **)&nvrtc.ptx = nvrtc_sym("nvrtcGetPTX");
    *(void **)&nvrtc.destroy = nvrtc_sym("nvrtcDestroyProgram");
    *(void **)&nvrtc.errorString = nvrtc_sym("nvrtcGetErrorString");
}

static void nvrtc_check(nvrtcResult r, const char *what) {
    if (r != 0) die("NVRTC %s failed: %s (%d)", what, nvrtc.errorString(r), r);
}

/* The kernels. The memory-bound one makes `passes` read-modify-write passes over its chunk;
 * x -> 0.5x + 1 is exact with or without FMA contraction, so the host can check results. */
static const char *KERNEL_SOURCE =
    "extern \"C\" __global__ void empty0() {}\n"
    "extern \"C\" __global__ void empty5(float *a, long long n, float s, int k, float *b) {}\n"
    "extern \"C\" __global__ void write_one(int *p, int v) {\n"
    "    if (blockIdx.x == 0 && threadIdx.x == 0) *p = v;\n"
    "}\n"
    "extern \"C\" __global__ void membound(float *data, long long n, int passes) {\n"
    "    long long stride = (long long)gridDim.x * blockDim.x;\n"
    "    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    for (int r = 0; r < passes; r++) {\n"
    "        for (long long i = first; i < n; i += stride) data[i] = data[i] * 0.5f + 1.0f;\n"
    "    }\n"
    "}\n";

static float membound_host(float x, int passes) {
    for (int r = 0; r < passes; r++) x = x * 0.5f + 1.0f;
    return x;
}

/* Compiles KERNEL_SOURCE to a cubin for the device (or to PTX for compute_XY when NVRTC
 * does not know sm_XY) and loads it. */
static CUmodule build_module(int major, int minor) {
    nvrtc_load();
    int vmaj = 0, vmin = 0;
    nvrtc_check(nvrtc.version(&vmaj, &vmin), "nvrtcVersion");
    fprintf(stderr, "NVRTC %d.%d from %s\n", vmaj, vmin, nvrtc.path);
    for (int attempt = 0; attempt < 2; attempt++) {
        char arch[64];
        snprintf(arch, sizeof arch, "--gpu-architecture=%s_%d%d", attempt == 0 ? "sm" : "compute",
                 major, minor);
        const char *opts[] = {arch, "-default-device"};
        nvrtcProgram prog;
        nvrtc_check(nvrtc.create(&prog, KERNEL_SOURCE, "sluice_native_bench.cu", 0, NULL, NULL),
                    "nvrtcCreateProgram");
        nvrtcResult cr = nvrtc.compile(prog, 2, opts);
        if (cr != 0) {
            size_t n = 0;
            nvrtc.logSize(prog, &n);
            char *log = calloc(n + 1, 1);
            if (log) nvrtc.log(prog, log);
            fprintf(stderr, "NVRTC compile with %s failed: %s\n%s\n", arch, nvrtc.errorString(cr),
                    log ? log : "");
            free(log);
            nvrtc.destroy(&prog);
            continue;
        }
        size_t size = 0;
        char *image;
        if (attempt == 0) {
            nvrtc_check(nvrtc.cubinSize(prog, &size), "nvrtcGetCUBINSize");
            image = malloc(size);
            if (!image) die("out of host memory");
            nvrtc_check(nvrtc.cubin(prog, image), "nvrtcGetCUBIN");
        } else {
            nvrtc_check(nvrtc.ptxSize(prog, &size), "nvrtcGetPTXSize");
            image = malloc(size);
            if (!image) die("out of host memory");
            nvrtc_check(nvrtc.ptx(prog, image), "nvrtcGetPTX");
        }
        nvrtc.destroy(&prog);
        CUmodule mod;
        CK(cuModuleLoadData(&mod, image));
        free(image);
        return mod;
    }
    die("could not compile the kernels with NVRTC");
    return NULL;
}

/* ------------------------------------------------------------------ options and device state */

typedef struct {
    int quick;
    int only_mask;
    int device;
    int passes;
    int max_streams;
    int chunks;
} Options;

enum { B_LAUNCH = 1, B_EVENT = 2, B_LATENCY = 4, B_TINY = 8, B_BANDWIDTH = 16, B_OVERLAP = 32 };
static const char *BENCH_NAMES[] = {"launch", "event", "latency", "tiny", "bandwidth", "overlap"};

static struct {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction empty0, empty5, write_one, membound;
    CUstream stream;
    int sms;
    double bw_both_512;
} S;

#define MIB (1024.0 * 1024.0)

/* ------------------------------------------------------------------ 1, 2: launch cost */

/* Host time per call of `n` launches (optionally each followed by cuEventRecord of a pooled
 * event) on one stream that is never drained in between; median of `reps` repeats, in µs. */
static double time_launches(CUfunction f, void **args, int n, int reps, CUevent *pool, int npool,
                            double *min_out) {
    double t[16];
    for (int r = -1; r < reps; r++) { /* r == -1 is a warm-up */
        CK(cuStreamSynchronize(S.stream));
        double t0 = now_ns();
        if (pool) {
            for (int i = 0; i < n; i++) {
                CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, S.stream, args, NULL));
                CK(cuEventRecord(pool[i % npool], S.stream));
            }
        } else {
            for (int i = 0; i < n; i++)
                CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, S.stream, args, NULL));
        }
        double t1 = now_ns();
        if (r >= 0) t[r] = (t1 - t0) / 1e3 / n;
    }
    CK(cuStreamSynchronize(S.stream));
    double mn = t[0];
    for (int r = 1; r < reps; r++) mn = t[r] < mn ? t[r] : mn;
    if (min_out) *min_out = mn;
    return median(t, reps);
}

static void bench_launch(const Options *o, int with_event) {
    int n = o->quick ? 20000 : 100000, reps = 5, npool = 256;
    CUdeviceptr p1, p2;
    CK(cuMemAlloc(&p1, 4096));
    CK(cuMemAlloc(&p2, 4096));
    long long ll = 1024;
    float fl = 2.5f;
    int in = 7;
    void *args5[] = {&p1, &ll, &fl, &in, &p2}; /* one argument block, reused every call */
    CUevent pool[256];
    if (with_event)
        for (int i = 0; i < npool; i++) CK(cuEventCreate(&pool[i], CU_EVENT_DISABLE_TIMING));
    CUevent *evs = with_event ? pool : NULL;
    double mn0, mn5;
    fprintf(stderr, "[%s] %d launches x %d repeats\n", with_event ? "event" : "launch", n, reps);
    double l0 = time_launches(S.empty0, NULL, n, reps, evs, npool, &mn0);
    double l5 = time_launches(S.empty5, args5, n, reps, evs, npool, &mn5);
    if (with_event) {
        result("launch0_event_us", l0, "empty launch, 0 args + cuEventRecord (median)");
        result("launch0_event_min_us", mn0, "  same, best of 5");
        result("launch5_event_us", l5, "empty launch, 5 args + cuEventRecord (median)");
        result("launch5_event_min_us", mn5, "  same, best of 5");
        for (int i = 0; i < npool; i++) CK(cuEventDestroy(pool[i]));
    } else {
        result("launch0_us", l0, "empty launch, 0 args, host time per call (median)");
        result("launch0_min_us", mn0, "  same, best of 5");
        result("launch5_us", l5, "empty launch, 5 args (ptr,i64,f32,i32,ptr) (median)");
        result("launch5_min_us", mn5, "  same, best of 5");
    }
    CK(cuMemFree(p1));
    CK(cuMemFree(p2));
}

/* ------------------------------------------------------------------ 3: completion latency */

static void bench_latency(const Options *o) {
    int n = o->quick ? 2000 : 10000;
    CUdeviceptr p;
    CK(cuMemAlloc(&p, 4096));
    int v = 0;
    void *args[] = {&p, &v};
    CUevent ev;
    CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
    double *t = malloc(sizeof(double) * (size_t)n);
    if (!t) die("out of host memory");
    fprintf(stderr, "[latency] %d samples, event spin and stream sync\n", n);
    for (int mode = 0; mode < 2; mode++) {
        CK(cuStreamSynchronize(S.stream));
        for (int i = -100; i < n; i++) { /* the first 100 are a warm-up */
            v = i;
            double t0 = now_ns();
            CK(cuLaunchKernel(S.write_one, 1, 1, 1, 1, 1, 1, 0, S.stream, args, NULL));
            if (mode == 0) {
                CK(cuEventRecord(ev, S.stream));
                CUresult r;
                while ((r = cuEventQuery(ev)) == CUDA_ERROR_NOT_READY) {
                }
                CK(r);
            } else {
                CK(cuStreamSynchronize(S.stream));
            }
            double t1 = now_ns();
            if (i >= 0) t[i] = (t1 - t0) / 1e3;
        }
        double p50 = percentile(t, n, 50), p99 = percentile(t, n, 99), mn = t[0];
        if (mode == 0) {
            result("latency_event_p50_us", p50, "idle stream: launch + cuEventQuery spin, p50");
            result("latency_event_p99_us", p99, "  same, p99");
            result("latency_event_min_us", mn, "  same, min");
        } else {
            result("latency_sync_p50_us", p50, "idle stream: launch + cuStreamSynchronize, p50");
            result("latency_sync_p99_us", p99, "  same, p99");
        }
    }
    free(t);
    CK(cuEventDestroy(ev));
    CK(cuMemFree(p));
}

/* ------------------------------------------------------------------ 4: many tiny kernels */

static void bench_tiny(const Options *o) {
    int n = o->quick ? 20000 : 100000, reps = o->quick ? 3 : 5;
    CUdeviceptr p;
    CK(cuMemAlloc(&p, 4096));
    int v = 0;
    void *args[] = {&p, &v};
    double t[16];
    fprintf(stderr, "[tiny] %d write-one-int kernels x %d repeats\n", n, reps);
    for (int r = -1; r < reps; r++) {
        CK(cuStreamSynchronize(S.stream));
        double t0 = now_ns();
        for (int i = 0; i < n; i++) {
            v = i; /* arguments are copied at launch */
            CK(cuLaunchKernel(S.write_one, 1, 1, 1, 1, 1, 1, 0, S.stream, args, NULL));
        }
        CK(cuStreamSynchronize(S.stream));
        double t1 = now_ns();
        if (r >= 0) t[r] = (t1 - t0) / 1e6;
        int got = -1;
        CK(cuMemcpyDtoH(&got, p, sizeof got));
        if (got != n - 1) die("tiny kernels: device holds %d, expected %d", got, n - 1);
    }
    double ms = median(t, reps);
    char name[64];
    snprintf(name, sizeof name, "tiny_%dk_ms", n / 1000);
    result(name, ms, "N tiny kernels, first launch to sync return (median)");
    result("tiny_per_kernel_us", ms * 1e3 / n, "  same, per kernel");
    CK(cuMemFree(p));
}

/* ------------------------------------------------------------------ 5: pinned bandwidth */

static double event_ms(CUevent a, CUevent b) {
    float ms;
    CK(cuEventElapsedTime(&ms, a, b));
    return ms;
}

static void bench_bandwidth(const Options *o, void *hin, void *hout, CUdeviceptr din,
                            CUdeviceptr dout) {
    static const int sizes_mib[] = {64, 256, 512};
    int reps = o->quick ? 3 : 5;
    CUstream s2;
    CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUevent e0, e1, e2;
    CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&e2, CU_EVENT_DEFAULT));
    fprintf(stderr, "[bandwidth] pinned 64/256/512 MiB, %d repeats each\n", reps);
    for (size_t k = 0; k < sizeof sizes_mib / sizeof sizes_mib[0]; k++) {
        size_t bytes = (size_t)sizes_mib[k] << 20;
        double t[3][16];
        for (int r = -1; r < reps; r++) {
            /* host -> device */
            CK(cuEventRecord(e0, S.stream));
            CK(cuMemcpyHtoDAsync(din, hin, bytes, S.stream));
            CK(cuEventRecord(e1, S.stream));
            CK(cuEventSynchronize(e1));
            double up = event_ms(e0, e1);
            /* device -> host */
            CK(cuEventRecord(e0, S.stream));
            CK(cuMemcpyDtoHAsync(hout, dout, bytes, S.stream));
            CK(cuEventRecord(e1, S.stream));
            CK(cuEventSynchronize(e1));
            double down = event_ms(e0, e1);
            /* both at once, on two streams that start together */
            CK(cuEventRecord(e0, S.stream));
            CK(cuStreamWaitEvent(s2, e0, 0));
            CK(cuMemcpyHtoDAsync(din, hin, bytes, S.stream));
            CK(cuMemcpyDtoHAsync(hout, dout, bytes, s2));
            CK(cuEventRecord(e1, S.stream));
            CK(cuEventRecord(e2, s2));
            CK(cuEventSynchronize(e1));
            CK(cuEventSynchronize(e2));
            double a = event_ms(e0, e1), b = event_ms(e0, e2);
            double both = a > b ? a : b;
            if (r >= 0) {
                t[0][r] = bytes / (up * 1e-3) / 1e9;
                t[1][r] = bytes / (down * 1e-3) / 1e9;
                t[2][r] = 2.0 * bytes / (both * 1e-3) / 1e9;
            }
        }
        static const char *dir[] = {"h2d", "d2h", "both"};
        static const char *what[] = {"pinned host -> device, GB/s (1e9 B/s, median)",
                                     "pinned device -> host, GB/s (median)",
                                     "both directions at once, 2 streams, total GB/s"};
        for (int d = 0; d < 3; d++) {
            char name[64], w[96];
            snprintf(name, sizeof name, "bw_%s_%dMiB_GBps", dir[d], sizes_mib[k]);
            snprintf(w, sizeof w, "%s%s", k == 0 ? "" : "  ", what[d]);
            double m = median(t[d], reps);
            result(name, m, w);
            if (d == 2 && sizes_mib[k] == 512) S.bw_both_512 = m;
        }
    }
    CK(cuEventDestroy(e0));
    CK(cuEventDestroy(e1));
    CK(cuEventDestroy(e2));
    CK(cuStreamDestroy(s2));
}

/* ------------------------------------------------------------------ 6: overlap */

static void bench_overlap(const Options *o, float *hin, float *hout, CUdeviceptr dbuf) {
    /* 16 chunks of 32 MiB by default; --chunks 8192 gives the small chunks (64 KiB) where the host's cost per
     * operation decides, as OverlapBenchmark --chunks 8192 measures Sluice */
    const int chunks = o->chunks;
    const size_t total = (size_t)512 << 20, chunk_bytes = total / chunks;
    long long chunk_n = (long long)(chunk_bytes / sizeof(float));
    int passes = o->passes, reps = o->quick ? 3 : 5;
    unsigned grid = (unsigned)S.sms * 4, block = 256;
    CUstream st[8];
    CUevent start, end[8];
    int smax = o->max_streams;
    for (int i = 0; i < smax; i++) {
        CK(cuStreamCreate(&st[i], CU_STREAM_NON_BLOCKING));
        CK(cuEventCreate(&end[i], CU_EVENT_DEFAULT));
    }
    CK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    for (size_t i = 0; i < total / sizeof(float); i++) hin[i] = (float)(i % 1000);
    fprintf(stderr, "[overlap] 512 MiB f32, %d chunks, %d passes per kernel, 1..%d streams\n",
            chunks, passes, smax);

    /* kernel work alone: data already on the device, every chunk's kernel on one stream */
    CK(cuMemcpyHtoD(dbuf, hin, total));
    double t[16];
    for (int r = -1; r < reps; r++) {
        CK(cuEventRecord(start, st[0]));
        for (int c = 0; c < chunks; c++) {
            CUdeviceptr d = dbuf + (CUdeviceptr)c * chunk_bytes;
            void *args[] = {&d, &chunk_n, &passes};
            CK(cuLaunchKernel(S.membound, grid, 1, 1, block, 1, 1, 0, st[0], args, NULL));
        }
        CK(cuEventRecord(end[0], st[0]));
        CK(cuEventSynchronize(end[0]));
        if (r >= 0) t[r] = event_ms(start, end[0]);
    }
    char alone[96];
    snprintf(alone, sizeof alone, "overlap: kernel work alone (%d chunks)", chunks);
    result("overlap_kernel_alone_ms", median(t, reps), alone);

    for (int ns = 1; ns <= smax; ns++) {
        for (int r = -1; r < reps; r++) {
            CK(cuEventRecord(start, st[0]));
            for (int s = 1; s < ns; s++) CK(cuStreamWaitEvent(st[s], start, 0));
            for (int c = 0; c < chunks; c++) {
                CUstream s = st[c % ns];
                size_t off = (size_t)c * chunk_bytes;
                CUdeviceptr d = dbuf + off;
                void *args[] = {&d, &chunk_n, &passes};
                CK(cuMemcpyHtoDAsync(d, (char *)hin + off, chunk_bytes, s));
                CK(cuLaunchKernel(S.membound, grid, 1, 1, block, 1, 1, 0, s, args, NULL));
                CK(cuMemcpyDtoHAsync((char *)hout + off, d, chunk_bytes, s));
            }
            double worst = 0;
            for (int s = 0; s < ns; s++) CK(cuEventRecord(end[s], st[s]));
            for (int s = 0; s < ns; s++) {
                CK(cuEventSynchronize(end[s]));
                double ms = event_ms(start, end[s]);
                worst = ms > worst ? ms : worst;
            }
            if (r >= 0) t[r] = worst;
            /* check a few elements of every chunk */
            for (size_t i = 0; i < total / sizeof(float); i += 1000003) {
                float want = membound_host(hin[i], passes);
                if (hout[i] != want)
                    die("overlap: element %zu is %g, expected %g", i, hout[i], want);
            }
            memset(hout, 0, total);
        }
        char name[64], w[96];
        snprintf(name, sizeof name, "overlap_streams%d_ms", ns);
        snprintf(w, sizeof w, "%supload+kernel+download, %d stream%s round-robin (median)",
                 ns == 1 ? "" : "  ", ns, ns == 1 ? "" : "s");
        result(name, median(t, reps), w);
    }
    if (S.bw_both_512 > 0)
        result("overlap_pcie_floor_ms", 2.0 * total / (S.bw_both_512 * 1e9) * 1e3,
               "  floor: 1 GiB at the measured both-directions rate");
    for (int i = 0; i < smax; i++) {
        CK(cuStreamDestroy(st[i]));
        CK(cuEventDestroy(end[i]));
    }
    CK(cuEventDestroy(start));
}

/* ------------------------------------------------------------------ main */

static void usage(void) {
    fprintf(stderr,
            "usage: sluice_native_bench [--quick] [--only NAME[,NAME...]] [--device N]\n"
            "                           [--repeat PASSES] [--max-streams N] [--chunks N]\n"
            "  NAME: launch, event, latency, tiny, bandwidth, overlap\n"
            "  --repeat: read-modify-write passes of the overlap kernel (default 4)\n"
            "  --max-streams: overlap over 1..N streams (default 4, at most 8)\n"
            "  --chunks: the overlap's 512 MiB in N chunks (default 16; a power of two from 1 to 65536)\n");
    exit(2);
}

static int parse_only(const char *list) {
    int mask = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int i = 0; i < 6; i++)
            if (strcmp(tok, BENCH_NAMES[i]) == 0) mask |= 1 << i, found = 1;
        if (!found) {
            fprintf(stderr, "unknown benchmark '%s'\n", tok);
            usage();
        }
    }
    return mask;
}

int main(int argc, char **argv) {
    Options o = {.quick = 0, .only_mask = 63, .device = 0, .passes = 4, .max_streams = 4, .chunks = 16};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (strcmp(a, "--quick") == 0) o.quick = 1;
        else if (strcmp(a, "--only") == 0 && more) o.only_mask = parse_only(argv[++i]);
        else if (strcmp(a, "--device") == 0 && more) o.device = atoi(argv[++i]);
        else if (strcmp(a, "--repeat") == 0 && more) o.passes = atoi(argv[++i]);
        else if (strcmp(a, "--max-streams") == 0 && more) o.max_streams = atoi(argv[++i]);
        else if (strcmp(a, "--chunks") == 0 && more) o.chunks = atoi(argv[++i]);
        else usage();
    }
    if (o.passes < 0 || o.max_streams < 1 || o.max_streams > 8) usage();
    if (o.chunks < 1 || o.chunks > 65536 || (o.chunks & (o.chunks - 1)) != 0) usage();

    CK(cuInit(0));
    int ndev = 0, drv = 0;
    CK(cuDeviceGetCount(&ndev));
    if (o.device < 0 || o.device >= ndev) die("device %d asked for, %d present", o.device, ndev);
    CK(cuDriverGetVersion(&drv));
    CK(cuDeviceGet(&S.dev, o.device));
    char devname[256];
    CK(cuDeviceGetName(devname, sizeof devname, S.dev));
    int major, minor, engines;
    CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, S.dev));
    CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, S.dev));
    CK(cuDeviceGetAttribute(&S.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, S.dev));
    CK(cuDeviceGetAttribute(&engines, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, S.dev));
    CK(cuDevicePrimaryCtxRetain(&S.ctx, S.dev));
    CK(cuCtxSetCurrent(S.ctx));

    time_t wall = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&wall));
    printf("date=%s\ndevice=%s\ncompute_capability=%d.%d\nsms=%d\ncopy_engines=%d\n"
           "driver_api_version=%d\nheader_cuda_version=%d\nquick=%d\n",
           date, devname, major, minor, S.sms, engines, drv, CUDA_VERSION, o.quick);

    S.mod = build_module(major, minor);
    CK(cuModuleGetFunction(&S.empty0, S.mod, "empty0"));
    CK(cuModuleGetFunction(&S.empty5, S.mod, "empty5"));
    CK(cuModuleGetFunction(&S.write_one, S.mod, "write_one"));
    CK(cuModuleGetFunction(&S.membound, S.mod, "membound"));
    CK(cuStreamCreate(&S.stream, CU_STREAM_NON_BLOCKING));

    if (o.only_mask & B_LAUNCH) bench_launch(&o, 0);
    if (o.only_mask & B_EVENT) bench_launch(&o, 1);
    if (o.only_mask & B_LATENCY) bench_latency(&o);
    if (o.only_mask & B_TINY) bench_tiny(&o);
    if (o.only_mask & (B_BANDWIDTH | B_OVERLAP)) {
        size_t total = (size_t)512 << 20;
        void *hin, *hout;
        CUdeviceptr din, dout;
        CK(cuMemHostAlloc(&hin, total, 0));
        CK(cuMemHostAlloc(&hout, total, 0));
        CK(cuMemAlloc(&din, total));
        CK(cuMemAlloc(&dout, total));
        memset(hin, 1, total); /* touch every page once before timing */
        memset(hout, 0, total);
        CK(cuMemsetD8(dout, 0, total));
        if (o.only_mask & B_BANDWIDTH) bench_bandwidth(&o, hin, hout, din, dout);
        if (o.only_mask & B_OVERLAP) bench_overlap(&o, hin, hout, din);
        CK(cuMemFree(din));
        CK(cuMemFree(dout));
        CK(cuMemFreeHost(hin));
        CK(cuMemFreeHost(hout));
    }

    CK(cuStreamDestroy(S.stream));
    CK(cuModuleUnload(S.mod));
    CK(cuDevicePrimaryCtxRelease(S.dev));

    printf("\n%-28s %12s  %s\n", "result", "value", "what");
    printf("%-28s %12s  %s\n", "----------------------------", "------------",
           "----------------------------------------------");
    for (int i = 0; i < nresults; i++)
        printf("%-28s %12.3f  %s\n", results[i].name, results[i].value, results[i].what);
    printf("(device: %s, cc %d.%d; units are in the names: _us, _ms, _GBps = 1e9 B/s)\n", devname,
           major, minor);
    return 0;
}
