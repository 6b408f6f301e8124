package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The short mode of the JMH benchmarks, run by {@code ./mvnw verify} on the CPU simulator: every benchmark of
 * {@code dev.sluice.benchmarks} once, in one fork, one warm-up and one measurement of 100 ms each. It checks
 * that they run, not how fast. {@code -Dsluice.bench.smoke=false} skips it.
 */
@DisabledIfSystemProperty(named = "sluice.bench.smoke", matches = "false")
class JmhSmokeTest {

    /** The benchmark methods of this package (not of subpackages such as {@code cuda}, which need a GPU). */
    static final String INCLUDE = "^dev\\.sluice\\.benchmarks\\.[A-Z]\\w*\\.\\w+$";
    static final int BENCHMARKS = 4 + 3 + 2 + 6 + 2 * 5 + 2 + 2; // MeterBenchmark: 2 methods x 5 meter settings; GeneratedKernelBenchmark: 2; OrderingBenchmark: 2

    @Test
    void everyBenchmarkRunsOnceOnTheCpuBackend() throws RunnerException {
        // JMH refuses to start while another JMH run on the machine holds /tmp/jmh.lock; this smoke run
        // measures nothing that another run could disturb, so it must not fail for that.
        System.setProperty("jmh.ignoreLock", "true");
        Options options = new OptionsBuilder()
                .include(INCLUDE)
                .forks(1)
                .warmupIterations(1)
                .warmupTime(TimeValue.milliseconds(100))
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .jvmArgsAppend("-Dsluice.api=cpu", "-Xmx512m")
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        long t0 = System.nanoTime();
        Collection<RunResult> results = new Runner(options).run();
        List<String> lines = new ArrayList<>();
        for (RunResult r : results) {
            var p = r.getParams();
            var s = r.getPrimaryResult();
            lines.add(String.format(Locale.ROOT, "  %-55s %12.3f %s", p.getBenchmark().replace("dev.sluice.benchmarks.", ""),
                    s.getScore(), s.getScoreUnit()));
            assertTrue(s.getScore() > 0 && Double.isFinite(s.getScore()), "a score for " + p.getBenchmark() + ": " + s);
        }
        System.out.printf(Locale.ROOT, "JMH short mode on the CPU simulator (%d benchmarks, %.1f s; not GPU figures):%n%s%n",
                results.size(), (System.nanoTime() - t0) / 1e9, String.join("\n", lines));
        assertEquals(BENCHMARKS, results.size(), "every benchmark of the package ran");
    }
}
