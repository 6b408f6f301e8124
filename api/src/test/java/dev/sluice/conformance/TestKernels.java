package dev.sluice.conformance;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The kernels of the conformance suite. Each carries CUDA C++ source in the dialect that both NVRTC and
 * hiprtc compile ({@code extern "C" __global__}, {@code threadIdx}/{@code blockIdx}/{@code blockDim}, no
 * headers) and a Java implementation for the CPU backend, so the same test runs on every backend. Java
 * implementations access memory with unaligned layouts, since slices may start anywhere.
 */
public final class TestKernels {

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private TestKernels() {
    }

    /** {@code vector[i] += scalar} for {@code i < size}. */
    public static final Kernel SCALAR_ADD = Kernel.named("scalar_add")
            .param(KernelParam.pointer("vector", DType.F32))
            .param(KernelParam.scalar("size", DType.I64))
            .param(KernelParam.scalar("scalar", DType.F32))
            .cudaSource("""
                    extern "C" __global__ void scalar_add(float* vector, long long size, float scalar) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < size) vector[i] += scalar;
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    MemorySegment v = t.pointer(0);
                    v.setAtIndex(FLOAT, i, v.getAtIndex(FLOAT, i) + t.floatArg(2));
                }
            })
            .build();

    /** {@code c[i] = a[i] + b[i]} for {@code i < n}. */
    public static final Kernel VECTOR_ADD = Kernel.named("vector_add")
            .param(KernelParam.pointer("a", DType.F32))
            .param(KernelParam.pointer("b", DType.F32))
            .param(KernelParam.pointer("c", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void vector_add(const float* a, const float* b, float* c, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) c[i] = a[i] + b[i];
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(3)) {
                    t.pointer(2).setAtIndex(FLOAT, i, t.pointer(0).getAtIndex(FLOAT, i) + t.pointer(1).getAtIndex(FLOAT, i));
                }
            })
            .build();

    /** {@code v[i] = v[i] * mul + add} for {@code i < n}: order-sensitive, so a chain of launches checks ordering. */
    public static final Kernel MUL_ADD = Kernel.named("mul_add")
            .param(KernelParam.pointer("v", DType.I32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("mul", DType.I32))
            .param(KernelParam.scalar("add", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void mul_add(int* v, long long n, int mul, int add) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) v[i] = v[i] * mul + add;
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    MemorySegment v = t.pointer(0);
                    v.setAtIndex(INT, i, v.getAtIndex(INT, i) * t.intArg(2) + t.intArg(3));
                }
            })
            .build();

    /**
     * {@code x[i] = x[i] * affine[0] + affine[1]}, reading the module variable {@code __constant__ float affine[3]}
     * (the third element only gives it a size that is not a whole number of doubles), and counting its launches in
     * {@code __device__ int launches}. GPU only: Java kernels have no module variables, so its Java form refuses.
     */
    public static final Kernel AFFINE_FROM_CONSTANT = Kernel.named("affine_from_constant")
            .param(KernelParam.pointer("x", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    __constant__ float affine[3];
                    __device__ int launches;
                    extern "C" __global__ void affine_from_constant(float* x, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) x[i] = x[i] * affine[0] + affine[1];
                        if (i == 0) atomicAdd(&launches, 1);
                    }
                    """)
            .java(t -> {
                throw new IllegalStateException("affine_from_constant reads module variables, which Java kernels do not have");
            })
            .build();

    /** {@code dst[i] = src[i]} for {@code i < n}. */
    public static final Kernel COPY_I32 = Kernel.named("copy_i32")
            .param(KernelParam.pointer("src", DType.I32))
            .param(KernelParam.pointer("dst", DType.I32))
            .param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void copy_i32(const int* src, int* dst, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) dst[i] = src[i];
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(2)) {
                    t.pointer(1).setAtIndex(INT, i, t.pointer(0).getAtIndex(INT, i));
                }
            })
            .build();

    /**
     * Every thread of a 1-, 2- or 3-D grid writes its global linear index {@code i = (z * H + y) * W + x}
     * (W and H the grid's width and height in threads) to {@code index[i]}, and its blockIdx.xyz and
     * threadIdx.xyz to {@code coords[6 i .. 6 i + 5]}.
     */
    public static final Kernel WRITE_COORDS = Kernel.named("write_coords")
            .param(KernelParam.pointer("index", DType.I32))
            .param(KernelParam.pointer("coords", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void write_coords(int* index, int* coords) {
                        long long w = (long long) gridDim.x * blockDim.x;
                        long long h = (long long) gridDim.y * blockDim.y;
                        long long x = (long long) blockIdx.x * blockDim.x + threadIdx.x;
                        long long y = (long long) blockIdx.y * blockDim.y + threadIdx.y;
                        long long z = (long long) blockIdx.z * blockDim.z + threadIdx.z;
                        long long i = (z * h + y) * w + x;
                        index[i] = (int) i;
                        int* c = coords + 6 * i;
                        c[0] = blockIdx.x; c[1] = blockIdx.y; c[2] = blockIdx.z;
                        c[3] = threadIdx.x; c[4] = threadIdx.y; c[5] = threadIdx.z;
                    }
                    """)
            .java(t -> {
                long w = (long) t.gridDim().x() * t.blockDim().x();
                long h = (long) t.gridDim().y() * t.blockDim().y();
                long i = (t.globalIdZ() * h + t.globalIdY()) * w + t.globalIdX();
                t.pointer(0).setAtIndex(INT, i, (int) i);
                MemorySegment c = t.pointer(1);
                c.setAtIndex(INT, 6 * i, t.blockIdxX());
                c.setAtIndex(INT, 6 * i + 1, t.blockIdxY());
                c.setAtIndex(INT, 6 * i + 2, t.blockIdxZ());
                c.setAtIndex(INT, 6 * i + 3, t.threadIdxX());
                c.setAtIndex(INT, 6 * i + 4, t.threadIdxY());
                c.setAtIndex(INT, 6 * i + 5, t.threadIdxZ());
            })
            .build();

    /**
     * Tree reduction of each block's slice of {@code in} through dynamic shared memory and barriers:
     * {@code out[blockIdx.x] = sum(in[blockIdx.x * blockDim.x .. + blockDim.x])}. blockDim.x must be a power of
     * two and the launch must give {@code blockDim.x * 4} bytes of dynamic shared memory.
     */
    public static final Kernel BLOCK_SUM = Kernel.named("block_sum")
            .param(KernelParam.pointer("in", DType.I32))
            .param(KernelParam.pointer("out", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void block_sum(const int* in, int* out) {
                        extern __shared__ int s[];
                        int t = threadIdx.x;
                        s[t] = in[blockIdx.x * blockDim.x + t];
                        __syncthreads();
                        for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
                            if (t < stride) s[t] += s[t + stride];
                            __syncthreads();
                        }
                        if (t == 0) out[blockIdx.x] = s[0];
                    }
                    """)
            .java(t -> {
                MemorySegment s = t.sharedMemory();
                int tid = t.threadIdxX();
                int bd = t.blockDim().x();
                s.setAtIndex(INT, tid, t.pointer(0).getAtIndex(INT, (long) t.blockIdxX() * bd + tid));
                t.syncThreads();
                for (int stride = bd / 2; stride > 0; stride >>= 1) {
                    if (tid < stride) {
                        s.setAtIndex(INT, tid, s.getAtIndex(INT, tid) + s.getAtIndex(INT, tid + stride));
                    }
                    t.syncThreads();
                }
                if (tid == 0) {
                    t.pointer(1).setAtIndex(INT, t.blockIdxX(), s.getAtIndex(INT, 0));
                }
            }, true)
            .build();

    /**
     * A deliberately slow kernel for ordering tests: thread (0, 0) first spins (GPUs: {@code cycles} clock
     * ticks; Java: {@code nanos} nanoseconds), then sets {@code out[0 .. n)} to {@code value}. Launch it with
     * one block of one thread; {@link ConformanceBase#slowFill} computes both durations.
     */
    public static final Kernel SLOW_FILL = Kernel.named("slow_fill")
            .param(KernelParam.pointer("out", DType.I32))
            .param(KernelParam.scalar("n", DType.I64))
            .param(KernelParam.scalar("value", DType.I32))
            .param(KernelParam.scalar("cycles", DType.I64))
            .param(KernelParam.scalar("nanos", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void slow_fill(int* out, long long n, int value, long long cycles, long long nanos) {
                        if (blockIdx.x != 0 || threadIdx.x != 0) return;
                        long long start = clock64();
                        while (clock64() - start < cycles) { }
                        for (long long i = 0; i < n; i++) out[i] = value;
                    }
                    """)
            .java(t -> {
                if (t.globalIdX() != 0) {
                    return;
                }
                long end = System.nanoTime() + t.longArg(4);
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                MemorySegment out = t.pointer(0);
                long n = t.longArg(1);
                int value = t.intArg(2);
                for (long i = 0; i < n; i++) {
                    out.setAtIndex(INT, i, value);
                }
            })
            .build();

    /**
     * A kernel that faults the device: on GPUs it writes to an invalid address (a sticky error that makes the
     * context unusable); in Java it throws. Never launch it on a context other tests share.
     */
    public static final Kernel FAULT = Kernel.named("fault")
            .param(KernelParam.scalar("code", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void fault(int code) {
                        *((volatile int*) 0x8) = code;
                    }
                    """)
            .java(t -> {
                throw new IllegalStateException("sluice conformance: deliberate kernel fault, code " + t.intArg(0));
            })
            .build();

    /** The message the Java implementation of {@link #FAULT} throws with. */
    public static final String FAULT_MESSAGE = "deliberate kernel fault";

    /**
     * Stores its scalar arguments, converted to their C values, into {@code ints[0..8]} (signed char, unsigned
     * char, short, unsigned short, int, unsigned int, long long, unsigned long long bits, bool as 0/1) and
     * {@code reals[0..1]} (float, double). Launch with one thread.
     */
    public static final Kernel STORE_SCALARS = Kernel.named("store_scalars")
            .param(KernelParam.scalar("a", DType.I8))
            .param(KernelParam.scalar("b", DType.U8))
            .param(KernelParam.scalar("c", DType.I16))
            .param(KernelParam.scalar("d", DType.U16))
            .param(KernelParam.scalar("e", DType.I32))
            .param(KernelParam.scalar("f", DType.U32))
            .param(KernelParam.scalar("g", DType.I64))
            .param(KernelParam.scalar("h", DType.U64))
            .param(KernelParam.scalar("k", DType.BOOL))
            .param(KernelParam.scalar("x", DType.F32))
            .param(KernelParam.scalar("y", DType.F64))
            .param(KernelParam.pointer("ints", DType.I64))
            .param(KernelParam.pointer("reals", DType.F64))
            .cudaSource("""
                    extern "C" __global__ void store_scalars(signed char a, unsigned char b, short c, unsigned short d,
                            int e, unsigned int f, long long g, unsigned long long h, bool k, float x, double y,
                            long long* ints, double* reals) {
                        if (blockIdx.x != 0 || threadIdx.x != 0) return;
                        ints[0] = a; ints[1] = b; ints[2] = c; ints[3] = d; ints[4] = e; ints[5] = f;
                        ints[6] = g; ints[7] = (long long) h; ints[8] = k ? 1 : 0;
                        reals[0] = x; reals[1] = y;
                    }
                    """)
            .java(t -> {
                if (t.globalIdX() != 0) {
                    return;
                }
                MemorySegment ints = t.pointer(11);
                for (int i = 0; i <= 8; i++) {
                    ints.setAtIndex(LONG, i, t.longArg(i));
                }
                MemorySegment reals = t.pointer(12);
                reals.setAtIndex(DOUBLE, 0, t.floatArg(9));
                reals.setAtIndex(DOUBLE, 1, t.doubleArg(10));
            })
            .build();

    /**
     * {@code kernel} with a source no context of this process has compiled yet (a unique comment in front), so that
     * compiling it loads a new module on the device.
     */
    public static Kernel freshCopy(Kernel kernel) {
        return Kernel.named(kernel.name())
                .params(kernel.params().toArray(KernelParam[]::new))
                .cudaSource("// " + System.nanoTime() + "\n" + kernel.cudaSource().orElseThrow())
                .java(kernel.java().orElseThrow())
                .build();
    }
}
