package dev.sluice.spark;

import dev.sluice.DType;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.kernel.Kernels;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.SparkSession;

/** The kernels, columns and Spark settings the tests share. */
final class TestStages {

    /** {@code y = x * x + 0.5 x + 1}: (x, y, n). */
    static final Kernel QUADRATIC = Kernels.elementwise("quadratic")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = x * x + 0.5f * x + 1.0f")
            .build();

    static final Field X = Field.notNullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
    static final Field Y = Field.notNullable("y", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
    static final Field ID = Field.notNullable("id", new ArrowType.Int(64, true));

    /** Failures the injecting stage is still to throw (all tasks run in this JVM: local mode). */
    static final AtomicInteger FAILURES_TO_INJECT = new AtomicInteger();

    private TestStages() {
    }

    static float quadratic(float x) {
        return x * x + 0.5f * x + 1.0f;
    }

    /**
     * A local SparkSession with the plugin: {@code threads} task slots, each task tried up to {@code maxFailures} times, the
     * UI and anything listening on a network port but the driver's off.
     */
    static SparkSession.Builder localSpark(String name, int threads, int maxFailures) {
        return SparkSession.builder()
                .master("local[" + threads + "," + maxFailures + "]")
                .appName(name)
                .config("spark.plugins", SluiceSparkPlugin.class.getName())
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.adaptive.enabled", "false");
    }
}
