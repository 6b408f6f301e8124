package dev.sluice.flink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.SluiceAsyncFunction;
import dev.sluice.reactive.DeviceLane;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * A job run as a Flink TaskManager runs it with sluice-flink-dist in {@code lib/}: the shaded jar on the class path (the
 * only Sluice classes there), the job's classes in a jar of their own that the client loads in a class loader of its own
 * and the TaskManager in Flink's child-first user-code class loader. An embedded cluster of one TaskManager with two
 * slots; the job's stage squares on the CPU simulator and reports which loader loaded what.
 */
class LibJarJobTest {

    /** The job, as a user writes it: sluice-flink at provided scope, its own kernel and lambdas. */
    private static final String JOB = """
            package job;

            import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

            import dev.sluice.DType;
            import dev.sluice.HostData;
            import dev.sluice.Kernel;
            import dev.sluice.KernelParam;
            import dev.sluice.flink.SluiceAsyncFunction;
            import java.util.ArrayList;
            import java.util.List;
            import java.util.concurrent.TimeUnit;
            import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
            import org.apache.flink.api.common.typeinfo.Types;
            import org.apache.flink.streaming.api.datastream.AsyncDataStream;
            import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
            import org.apache.flink.util.CloseableIterator;

            public final class LibJob {
                static final Kernel SQUARE = Kernel.named("square")
                        .param(KernelParam.pointer("in", DType.F32))
                        .param(KernelParam.pointer("out", DType.F32))
                        .param(KernelParam.scalar("n", DType.I64))
                        .java(t -> {
                            long i = t.globalIdX();
                            if (i < t.longArg(2)) {
                                float v = t.pointer(0).getAtIndex(JAVA_FLOAT, i);
                                t.pointer(1).setAtIndex(JAVA_FLOAT, i, v * v);
                            }
                        })
                        .build();

                public static List<String> run() throws Exception {
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
                    List<float[]> batches = new ArrayList<>();
                    for (int b = 1; b <= 6; b++) {
                        batches.add(new float[] {b, b, b});
                    }
                    SluiceAsyncFunction<float[], String> square = SluiceAsyncFunction.<float[], String>kernel(() -> SQUARE)
                            .input(DType.F32, HostData::of)
                            .output(DType.F32, (in, out, n) -> describe(out.toArray(JAVA_FLOAT)))
                            .lanes(2)
                            .build();
                    List<String> results = new ArrayList<>();
                    try (CloseableIterator<String> it = AsyncDataStream.unorderedWait(
                                    env.fromData(batches, PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO),
                                    square, 30, TimeUnit.SECONDS, square.lanes())
                            .returns(Types.STRING).executeAndCollect()) {
                        it.forEachRemaining(results::add);
                    }
                    return results;
                }

                /** The first value, then where the job's class and Sluice's came from, on the TaskManager. */
                static String describe(float[] out) {
                    ClassLoader system = ClassLoader.getSystemClassLoader();
                    return (int) out[0] + " job-from-system=" + (LibJob.class.getClassLoader() == system)
                            + " sluice-from-system=" + (SluiceAsyncFunction.class.getClassLoader() == system);
                }
            }
            """;

    @Test
    void aJobJarRunsOnTheLibJar(@TempDir Path dir) throws Exception {
        String jar = SluiceAsyncFunction.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertTrue(jar.matches(".*/sluice-flink-dist-[^/]*\\.jar"), "Sluice comes from the shaded jar only: " + jar);
        assertSame(ClassLoader.getSystemClassLoader(), SluiceAsyncFunction.class.getClassLoader());
        // sluice-flink's lanes are sluice-reactive's, which needs reactor-core: both must be inside the jar, as the
        // test's class path has neither otherwise.
        for (Class<?> c : List.of(DeviceLane.class, Mono.class, Publisher.class)) {
            String from = c.getProtectionDomain().getCodeSource().getLocation().getPath();
            assertTrue(from.matches(".*/sluice-flink-dist-[^/]*\\.jar"),
                    c.getName() + " comes from the shaded jar: " + from);
        }
        Path jobJar = compileJob(dir);

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        MiniClusterConfiguration cluster = new MiniClusterConfiguration.Builder().setConfiguration(conf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build();
        List<String> results;
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (LogRecorder log = LogRecorder.install();
             MiniCluster flink = new MiniCluster(cluster);
             URLClassLoader client = new URLClassLoader("job", new URL[] {jobJar.toUri().toURL()},
                     ClassLoader.getSystemClassLoader())) {
            flink.start();
            // As `flink run` does: the job's jar goes with the job, and its main runs in a loader of its own.
            TestStreamEnvironment.setAsContext(flink, 2, List.of(new org.apache.flink.core.fs.Path(jobJar.toUri())),
                    List.of());
            Thread.currentThread().setContextClassLoader(client);
            try {
                @SuppressWarnings("unchecked")
                List<String> out = (List<String>) Class.forName("job.LibJob", true, client).getMethod("run")
                        .invoke(null);
                results = out;
            } finally {
                Thread.currentThread().setContextClassLoader(before);
                TestStreamEnvironment.unsetAsContext();
            }
            List<String> opened = log.messages("dev.sluice.flink.SluiceAsyncFunction", "on device cpu:");
            assertEquals(2, opened.size(), "each subtask's INFO record reached Log4j through SLF4J: " + log.events);
            assertTrue(opened.getFirst().startsWith("INFO sluice-flink: "), opened.getFirst());
        }
        TreeSet<String> expected = new TreeSet<>();
        for (int b = 1; b <= 6; b++) {
            expected.add(b * b + " job-from-system=false sluice-from-system=true");
        }
        assertEquals(expected, new TreeSet<>(results),
                "every batch squared; on the TaskManager the job's classes in Flink's user-code loader, Sluice's in lib/");
    }

    /** Compiles {@link #JOB} against the test's class path (Flink and the shaded jar) into a jar of its own. */
    private static Path compileJob(Path dir) throws IOException {
        Path src = dir.resolve("src/job/LibJob.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, JOB);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter messages = new StringWriter();
        boolean compiled = javac.getTask(messages, null, null,
                List.of("-proc:none", "-classpath", System.getProperty("java.class.path"), "-d", classes.toString()),
                null, javac.getStandardFileManager(null, null, null).getJavaFileObjects(src)).call();
        assertTrue(compiled, "the job compiles against the lib jar: " + messages);
        Path jar = dir.resolve("job.jar");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(classes)) {
            walk.filter(Files::isRegularFile).forEach(files::add);
        }
        assertFalse(files.isEmpty());
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarOut = new JarOutputStream(out)) {
            for (Path f : files) {
                jarOut.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                jarOut.write(Files.readAllBytes(f));
                jarOut.closeEntry();
            }
        }
        return jar;
    }
}
