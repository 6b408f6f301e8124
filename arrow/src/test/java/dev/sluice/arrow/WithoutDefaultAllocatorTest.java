package dev.sluice.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With only the dependencies docs/arrow.md names ({@code arrow-vector}, {@code arrow-memory-core}), Sluice's pinned
 * allocator and Arrow's own default work: {@link WithoutDefaultAllocatorProbe} in a JVM whose class path is this test's
 * without {@code arrow-memory-unsafe} and {@code arrow-memory-netty}.
 */
class WithoutDefaultAllocatorTest {

    @Test
    void thePinnedAllocatorNeedsNoArrowAllocationManager(@TempDir Path dir) throws Exception {
        List<String> kept = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            (entry.contains("arrow-memory-unsafe") || entry.contains("arrow-memory-netty") ? dropped : kept).add(entry);
        }
        assertFalse(dropped.isEmpty(), "this module's tests have arrow-memory-unsafe: the probe runs without it");
        assertTrue(kept.stream().anyMatch(e -> e.contains("arrow-memory-core")), "but with arrow-memory-core: " + kept);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        // Arrow's own MemoryUtil calls sun.misc.Unsafe: the flag docs/arrow.md gives for it, so that anything else on
        // standard error shows.
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--sun-misc-unsafe-memory-access=allow", "-cp", String.join(File.pathSeparator, kept),
                WithoutDefaultAllocatorProbe.class.getName())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe ended");
        String stdout = Files.readString(out);
        String stderr = Files.readString(err);
        assertEquals(0, p.exitValue(), "probe failed:\n" + stdout + stderr);
        assertEquals(WithoutDefaultAllocatorProbe.OK, stdout.strip());
        assertEquals("", stderr, "nothing on standard error (no allocation manager error, no warning)");
        assertTrue(Arrays.stream(stdout.split("\n")).noneMatch(l -> l.contains("Unsafe")));
    }
}
