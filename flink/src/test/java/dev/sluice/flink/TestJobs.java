package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** What the tests of jobs on the embedded cluster share: their environment, and the check that they let go of every context. */
final class TestJobs {

    private TestJobs() {
    }

    /**
     * An environment of {@code parallelism} whose jobs fail at the first failure (no restarts), their functions on
     * {@link TestBackend}'s backend.
     */
    static StreamExecutionEnvironment environment(int parallelism) {
        TestBackend.select();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    /**
     * Every shared device context is closed, within 10 s: a job's functions close when its tasks end, which may be a
     * moment after the client saw the job end.
     */
    static void assertEveryContextClosed() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (SharedContexts.openCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, SharedContexts.openCount(), "shared device contexts left open");
    }
}
