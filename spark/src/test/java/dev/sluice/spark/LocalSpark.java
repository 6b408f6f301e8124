package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.function.UnaryOperator;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's local {@code SparkSession} with the plugin ({@link TestStages#localSpark}), as a static
 * {@code @RegisterExtension} field: started before the class's tests, checked after each that nothing of its tasks is
 * left ({@link GpuPartitionStageTest#assertNothingLeftOfTasks()}), stopped after the last with a check that the
 * plugin's shutdown closed every context.
 */
final class LocalSpark implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private final String name;
    private final int threads;
    private final int maxFailures;
    private final UnaryOperator<SparkSession.Builder> settings;
    private SparkSession spark;

    LocalSpark(String name, int threads, int maxFailures) {
        this(name, threads, maxFailures, UnaryOperator.identity());
    }

    /** With {@code settings} applied to the builder (speculation, ...). */
    LocalSpark(String name, int threads, int maxFailures, UnaryOperator<SparkSession.Builder> settings) {
        this.name = name;
        this.threads = threads;
        this.maxFailures = maxFailures;
        this.settings = settings;
    }

    /** The local Spark, while the class's tests run. */
    SparkSession spark() {
        return spark;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        spark = settings.apply(TestStages.localSpark(name, threads, maxFailures)).getOrCreate();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        GpuPartitionStageTest.assertNothingLeftOfTasks();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        spark.stop();
        assertEquals(0, ExecutorDevices.openCount(), "the plugin's shutdown closes every context");
    }
}
