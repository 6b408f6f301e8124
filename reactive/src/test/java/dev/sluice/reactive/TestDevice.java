package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import reactor.blockhound.BlockHound;

/**
 * What every test of this module shares: BlockHound, installed once per JVM before any context opens (with
 * Reactor's and Sluice's integrations, found through META-INF/services), the context (the backend named by
 * the system property {@code sluice.api}, else the best present: the CPU simulator in CI), and kernels that
 * carry both CUDA C++ and a Java implementation so the same tests run on every backend.
 */
final class TestDevice {

    static {
        // The Reactive Streams TCK's subscriber queues what it is given in an ArrayBlockingQueue, whose lock a signal
        // may wait for while the test's thread reads the queue: a short wait of the test's own, on whatever thread
        // signals (a completion thread among them). On 16 cores BlockHound caught it, and its error, thrown out of
        // onNext or onComplete, failed the TCK rule.
        BlockHound.install(builder -> builder
                .allowBlockingCallsInside("org.reactivestreams.tck.TestEnvironment$Receptacle", "add")
                .allowBlockingCallsInside("org.reactivestreams.tck.TestEnvironment$Receptacle", "complete"));
    }

    private TestDevice() {
    }

    static DeviceContext open() {
        return DeviceContext.open();
    }

    /** out[i] = in[i] * a + b. */
    static final Kernel SCALE_ADD = Kernel.named("scale_add")
            .params(KernelParam.pointer("in", DType.F32), KernelParam.pointer("out", DType.F32), KernelParam.scalar("n", DType.I64),
                    KernelParam.scalar("a", DType.F32), KernelParam.scalar("b", DType.F32))
            .cudaSource("""
                    extern "C" __global__ void scale_add(const float* in, float* out, long long n, float a, float b) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) out[i] = in[i] * a + b;
                    }""")
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(2)) {
                    float v = t.pointer(0).getAtIndex(ValueLayout.JAVA_FLOAT, i);
                    t.pointer(1).setAtIndex(ValueLayout.JAVA_FLOAT, i, v * t.floatArg(3) + t.floatArg(4));
                }
            })
            .build();

    /** v[i] += 1 for i < n. */
    static final Kernel ADD_ONE = Kernel.named("add_one")
            .params(KernelParam.pointer("v", DType.F32), KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void add_one(float* v, long long n) {
                        long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x;
                        if (i < n) v[i] += 1.0f;
                    }""")
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    var v = t.pointer(0);
                    v.setAtIndex(ValueLayout.JAVA_FLOAT, i, v.getAtIndex(ValueLayout.JAVA_FLOAT, i) + 1f);
                }
            })
            .build();

    /** out[0] = the sum of in[0..n), by one thread. */
    static final Kernel SUM = Kernel.named("sum_serial")
            .params(KernelParam.pointer("in", DType.F32), KernelParam.pointer("out", DType.F32), KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void sum_serial(const float* in, float* out, long long n) {
                        if (blockIdx.x == 0 && threadIdx.x == 0) {
                            float s = 0.0f;
                            for (long long i = 0; i < n; i++) s += in[i];
                            out[0] = s;
                        }
                    }""")
            .java(t -> {
                if (t.globalIdX() == 0) {
                    float s = 0;
                    for (long i = 0; i < t.longArg(2); i++) {
                        s += t.pointer(0).getAtIndex(ValueLayout.JAVA_FLOAT, i);
                    }
                    t.pointer(1).setAtIndex(ValueLayout.JAVA_FLOAT, 0, s);
                }
            })
            .build();

    /** Occupies the stream for {@code us} microseconds (one thread; launch with LaunchConfig.of(1, 1)). */
    static final Kernel DELAY = Kernel.named("delay_us")
            .params(KernelParam.scalar("us", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void delay_us(long long us) {
                        unsigned long long start, now;
                        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
                        do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < (unsigned long long) us * 1000ULL);
                    }""")
            .java(t -> {
                long end = System.nanoTime() + t.longArg(0) * 1000;
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
            })
            .build();

    /**
     * Closes the pipeline and waits (on the test thread, never a Reactor one) until it has released everything
     * it allocated: {@link GpuPipeline#released()} completes and the counters agree.
     */
    static void closeAndAwaitReleased(GpuPipeline<?, ?> p) throws Exception {
        p.close();
        p.released().get(20, java.util.concurrent.TimeUnit.SECONDS);
        awaitReleased(p.metrics());
    }

    /** Waits (on the test thread, never a Reactor one) until the pipeline has released everything it allocated. */
    static void awaitReleased(PipelineMetrics m) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (m.liveAllocations() != 0 || m.lanesClosed() != m.lanesOpened()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not released after 20 s: " + m);
            }
            Thread.sleep(5);
        }
    }
}
