package dev.sluice.benchmarks;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.lang.management.ManagementFactory;

/**
 * Bytes the enqueuing thread allocates per enqueue, on the CPU backend: the enqueue path alone (checks, the future, the
 * engine's description of the operation, marking), without the backend's and the completion thread's allocations,
 * which JMH's {@code -prof gc} counts too and which vary with how markers group from run to run. Deterministic to the
 * byte, so two builds compare directly:
 *
 * <pre>{@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.EnqueueAllocation}</pre>
 *
 * Launches of an empty kernel with no argument and with five (the arguments of {@code EnqueueBenchmark}), and a
 * 256-byte copy from pinned memory, 200,000 each, twice (the second pass is the one to read).
 */
public final class EnqueueAllocation {

    private EnqueueAllocation() {
    }

    /** Runs the measurement and prints one line per operation and pass. */
    public static void main(String[] args) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0); DeviceStream s = ctx.createStream()) {
            DeviceFunction empty0 = ctx.compile(Kernel.named("empty0").java(t -> { }).build());
            DeviceFunction empty5 = ctx.compile(Kernel.named("empty5").params(KernelParam.pointer("a", DType.F32),
                    KernelParam.scalar("n", DType.I64), KernelParam.scalar("s", DType.F32), KernelParam.scalar("k", DType.I32),
                    KernelParam.pointer("b", DType.F32)).java(t -> { }).build());
            DeviceBuffer a = ctx.allocate(DType.F32, 1024), b = ctx.allocate(DType.F32, 1024), small = ctx.allocate(DType.F32, 64);
            HostBuffer pinned = ctx.allocateHost(DType.F32, 64);
            LaunchConfig one = LaunchConfig.of(1, 1);
            Long n = 1024L; Float f = 2.5f; Integer k = 7;
            Object[] args5 = {a, n, f, k, b};
            for (String what : new String[] {"launch0", "launch5", "copyHostToDevice", "launch0", "launch5", "copyHostToDevice"}) {
                int ops = 200_000;
                long total = 0;
                long id = Thread.currentThread().threadId();
                for (int round = 0; round < ops / 1000; round++) {
                    long before = mx.getThreadAllocatedBytes(id);
                    DeviceFuture<Void> last = null;
                    for (int i = 0; i < 1000; i++) {
                        last = switch (what) {
                            case "launch0" -> s.enqueueLaunch(empty0, one);
                            case "launch5" -> s.enqueueLaunch(empty5, one, args5);
                            default -> s.enqueueCopy(pinned, small);
                        };
                    }
                    total += mx.getThreadAllocatedBytes(id) - before;
                    last.join();
                }
                System.out.printf("%s: %.1f bytes per enqueue on the calling thread%n", what, (double) total / ops);
            }
        }
    }
}
