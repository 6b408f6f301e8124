package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.BackendUnavailableException;
import dev.sluice.DeviceContext;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native access as a user meets it, in JVMs started without Surefire's {@code --enable-native-access}: refused
 * native access is reported as such, with the flag to add, and a program that runs on the CPU simulator prints no
 * JDK warning.
 */
class NativeAccessTest {

    /** The program the child JVMs run: detect(), then open each backend named in the arguments. */
    public static final class Child {
        public static void main(String[] args) {
            System.out.print(DeviceContext.detect());
            for (String a : args) {
                if (a.equals("auto")) {
                    try (DeviceContext ctx = DeviceContext.open()) {
                        System.out.println("opened " + ctx.api().id());
                    }
                    continue;
                }
                try (DeviceContext ctx = DeviceContext.open(Api.of(a), 0)) {
                    System.out.println("opened " + ctx.api().id());
                } catch (BackendUnavailableException e) {
                    System.out.println("exception: " + e.getMessage());
                }
            }
        }
    }

    record Result(int exit, String out, String err) {
    }

    private static Result run(Path dir, List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", cp, Child.class.getName()));
        cmd.addAll(List.of(args));
        File out = dir.resolve("out.txt").toFile();
        File err = dir.resolve("err.txt").toFile();
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err);
        pb.environment().remove("SLUICE_API");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child JVM did not finish within 60 s: " + cmd);
        return new Result(p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8),
                Files.readString(err.toPath(), StandardCharsets.UTF_8));
    }

    @Test
    void deniedNativeAccessIsNamedWithTheFlagToAdd(@TempDir Path dir) throws Exception {
        Result r = run(dir, List.of("--illegal-native-access=deny"), "cuda", "hip");
        assertEquals(0, r.exit(), r.toString());
        String expected = "the JDK refuses native access to code on the class path (--illegal-native-access=deny):"
                + " run java with --enable-native-access=ALL-UNNAMED";
        assertTrue(r.out().contains("  cuda: unavailable: " + expected), r.out());
        assertTrue(r.out().contains("  hip: unavailable: " + expected), r.out());
        assertTrue(r.out().contains("exception: cuda backend unavailable: " + expected), r.out());
        assertTrue(r.out().contains("exception: hip backend unavailable: " + expected), r.out());
        assertFalse(r.out().contains("libcuda.so.1 was not found"), "not blamed on a missing driver: " + r.out());
    }

    @Test
    void aCpuProgramWithoutTheFlagPrintsNoJdkWarning(@TempDir Path dir) throws Exception {
        Result r = run(dir, List.of("-Dsluice.cpu.devices=1"), "auto");
        assertEquals(0, r.exit(), r.toString());
        assertFalse(r.err().contains("WARNING"), "stderr: " + r.err());
        assertTrue(r.out().contains("  cpu: 1 device(s)"), r.out());
        assertTrue(r.out().contains("native access is not enabled for code on the class path"), r.out());
        assertTrue(r.out().contains("run java with --enable-native-access=ALL-UNNAMED"), r.out());
        assertTrue(r.out().endsWith("opened cpu" + System.lineSeparator()), r.out());
    }

    @Test
    void withTheFlagTheGpuBackendsLookForTheirLibraries(@TempDir Path dir) throws Exception {
        Result r = run(dir, List.of("--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny"), "cuda");
        assertEquals(0, r.exit(), r.toString());
        assertFalse(r.out().contains("native access"), r.out());
        assertFalse(r.err().contains("WARNING"), "stderr: " + r.err());
        assertTrue(r.out().contains("  cuda: "), r.out());
    }
}
