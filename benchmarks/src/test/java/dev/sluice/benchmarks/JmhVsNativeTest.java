package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The ratio table reads JMH's JSON and native.txt's key=value lines. */
class JmhVsNativeTest {

    @Test
    void launchAndLatencyFiguresAreSetAgainstTheirCFigures() {
        String json = """
                [ { "benchmark" : "dev.sluice.benchmarks.EnqueueBenchmark.launch5", "mode" : "avgt",
                    "params" : { "tracing" : "false", "waitStrategy" : "PARK" },
                    "primaryMetric" : { "score" : 4.2, "scoreError" : 0.1, "scoreUnit" : "us/op", "rawData" : [ [ 4.1, 4.3 ] ] } },
                  { "benchmark" : "dev.sluice.benchmarks.LatencyBenchmark.kernel", "mode" : "sample",
                    "params" : { "waitStrategy" : "SPIN" },
                    "primaryMetric" : { "score" : 9.0, "scoreError" : "NaN", "scoreUnit" : "us/op",
                        "scorePercentiles" : { "50.0" : 8.8, "99.0" : 16.0 } } } ]
                """;
        String t = JmhVsNative.table(json, List.of("device=H200", "launch5_us=3.5", "launch5_event_us=3.5",
                "latency_event_p50_us=8.0", "latency_event_p99_us=16.0"));
        assertTrue(t.contains("| EnqueueBenchmark.launch5 | tracing=false, waitStrategy=PARK | 4.200 ± 0.100 | launch5_event_us | 3.500 | 1.20 |"), t);
        assertTrue(t.contains("| LatencyBenchmark.kernel p50 | waitStrategy=SPIN | 8.800 | latency_event_p50_us | 8.000 | 1.10 |"), t);
        assertTrue(t.contains("| LatencyBenchmark.kernel p99 | waitStrategy=SPIN | 16.000 | latency_event_p99_us | 16.000 | 1.00 |"), t);
    }
}
