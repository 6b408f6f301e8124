package dev.sluice.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BackendUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What {@code exec:exec -Dexample=NAME} runs: a wrong name or an absent backend is one line, and no example is left out. */
class RunExampleTest {

    @Test
    void aNameThatIsNoExampleListsTheExamples() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = RunExample.run(RunExample.EXAMPLES, new String[] {"Nope"}, new PrintStream(err, true, UTF_8));
        assertEquals(RunExample.NO_SUCH_EXAMPLE, status);
        List<String> lines = err.toString(UTF_8).lines().toList();
        assertEquals(List.of("no example named Nope; the examples: Demo, ScalarAdd, PrintThreads, MapToHost, TwoStreams,"
                + " PeerCopy, Quickstart, WrittenOnce, Iterations, ArrowIpc, FlinkJob, FlinkBench, SparkJob, SparkBench"
                + " (-Dexample=NAME)"), lines);
    }

    @Test
    void aMisspeltNameGetsTheNearestExample() {
        for (String[] given : new String[][] {{"WritenOnce", "WrittenOnce"}, {"iterations", "Iterations"},
                {"Flink", "FlinkJob"}, {"Demp", "Demo"}}) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(RunExample.NO_SUCH_EXAMPLE, RunExample.run(RunExample.EXAMPLES, new String[] {given[0]},
                    new PrintStream(err, true, UTF_8)));
            assertTrue(err.toString(UTF_8).startsWith("no example named " + given[0] + " (did you mean " + given[1] + "?);"),
                    err.toString(UTF_8));
        }
    }

    @Test
    void aMisspeltBackendGetsTheNearestBackend() {
        String before = System.getProperty("sluice.api");
        System.setProperty("sluice.api", "cdua");
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(RunExample.BACKEND_UNAVAILABLE, run(args -> dev.sluice.DeviceContext.open().close(), err));
            assertTrue(err.toString(UTF_8).contains("unknown backend 'cdua' (did you mean cuda?)"), err.toString(UTF_8));
        } finally {
            if (before == null) {
                System.clearProperty("sluice.api");
            } else {
                System.setProperty("sluice.api", before);
            }
        }
    }

    @Test
    void anAbsentBackendIsOneLineWithItsMessageAndWhereToLook() {
        // the exception as DeviceContext.open() throws it, and wrapped as a future's join() throws it
        for (RuntimeException thrown : List.of(absent(), new CompletionException(absent()))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = run(args -> {
                throw thrown;
            }, err);
            assertEquals(RunExample.BACKEND_UNAVAILABLE, status);
            List<String> lines = err.toString(UTF_8).lines().toList();
            assertEquals(1, lines.size(), lines::toString);
            assertEquals("Demo: cuda backend unavailable: no driver (DeviceContext.detect(), or ./sluice detect, lists the"
                    + " backends and devices this machine has)", lines.get(0));
        }
    }

    @Test
    void anUnknownBackendNameIsOneLineNamingTheProperty() {
        String before = System.getProperty("sluice.api");
        System.setProperty("sluice.api", "gpu");
        try {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = run(args -> dev.sluice.DeviceContext.open().close(), err);
            assertEquals(RunExample.BACKEND_UNAVAILABLE, status);
            List<String> lines = err.toString(UTF_8).lines().toList();
            assertEquals(1, lines.size(), () -> "one line: " + lines);
            assertTrue(lines.getFirst().contains("system property sluice.api") && lines.getFirst().contains("'gpu'"),
                    lines::getFirst);
        } finally {
            if (before == null) {
                System.clearProperty("sluice.api");
            } else {
                System.setProperty("sluice.api", before);
            }
        }
    }

    @Test
    void otherFailuresKeepTheirStackTrace() {
        IllegalStateException bug = new IllegalStateException("a bug");
        assertSame(bug, assertThrows(IllegalStateException.class, () -> run(args -> {
            throw bug;
        }, new ByteArrayOutputStream())));
    }

    @Test
    void theArgumentsAfterTheNameGoToTheExample() {
        String[][] seen = new String[1][];
        assertEquals(0, run(args -> seen[0] = args, new ByteArrayOutputStream(), "--size", "1Mi"));
        assertEquals(List.of("--size", "1Mi"), List.of(seen[0]));
    }

    /** Every class of this package with a {@code main}, RunExample aside, is one of RunExample's examples. */
    @Test
    void everyExampleIsListed() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(RunExample.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("dev/sluice/examples");
        Set<String> withMain = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String file = f.getFileName().toString();
                if (!file.endsWith(".class") || file.contains("$")) {
                    continue;
                }
                String name = file.substring(0, file.length() - ".class".length());
                if (!name.equals("RunExample") && hasMain(Class.forName("dev.sluice.examples." + name))) {
                    withMain.add(name);
                }
            }
        }
        assertEquals(withMain, new TreeSet<>(RunExample.EXAMPLES.keySet()));
    }

    /** The README's list of what {@code -Dexample=} takes names every example. */
    @Test
    void theReadmeNamesEveryExample() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), UTF_8); // Surefire runs in the module's folder
        for (String name : RunExample.EXAMPLES.keySet()) {
            assertTrue(readme.contains("`" + name + "`") || readme.contains("-Dexample=" + name),
                    () -> "README.md does not name the example " + name);
        }
    }

    private static boolean hasMain(Class<?> c) {
        try {
            Method m = c.getMethod("main", String[].class);
            return Modifier.isStatic(m.getModifiers());
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static BackendUnavailableException absent() {
        return new BackendUnavailableException("cuda backend unavailable: no driver");
    }

    /** Runs {@code example} as "Demo" through RunExample's handling, writing its report to {@code err}. */
    private static int run(Consumer<String[]> example, ByteArrayOutputStream err, String... args) {
        String[] all = Stream.concat(Stream.of("Demo"), Stream.of(args)).toArray(String[]::new);
        return RunExample.run(Map.of("Demo", example), all, new PrintStream(err, true, UTF_8));
    }
}
