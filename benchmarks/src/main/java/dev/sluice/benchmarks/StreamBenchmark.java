package dev.sluice.benchmarks;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the JMH benchmarks of this package share: a context and one stream, opened once per trial and closed after it,
 * and the JMH settings they run with unless they say otherwise (JMH reads these annotations from the superclass; a
 * benchmark's own annotation replaces the one here). Each benchmark is its own per-thread state ({@link Scope#Thread}):
 * the context, the stream and whatever {@link #prepare} makes belong to the thread that measures.
 *
 * <p>{@link #open} and {@link #close} are the only trial-level {@link Setup} and {@link TearDown} methods, and
 * subclasses add theirs through {@link #openContext}, {@link #prepare} and {@link #release} rather than through
 * annotated methods of their own, so the order is fixed: the context, the stream, then the rest; and at the end the
 * rest, then the context.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
// JMH 1.37 reads field offsets through sun.misc.Unsafe, which JDK 25 warns about.
@Fork(value = 2, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
abstract class StreamBenchmark {

    DeviceContext ctx;
    DeviceStream stream;

    /** Opens the context the benchmark runs on, with the options it compares. */
    abstract DeviceContext openContext();

    /** Makes what the benchmark uses besides the context and the stream (kernels, buffers...); nothing by default. */
    void prepare() {
    }

    /** Closes what closing the context does not, before the context closes; nothing by default. */
    void release() {
    }

    @Setup(Level.Trial)
    public final void open() {
        ctx = openContext();
        stream = ctx.createStream();
        prepare();
    }

    @TearDown(Level.Trial)
    public final void close() {
        try {
            release();
        } finally {
            ctx.close();
        }
    }
}
