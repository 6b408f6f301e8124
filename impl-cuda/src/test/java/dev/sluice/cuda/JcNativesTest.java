package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JCuda's native binding per platform: found where JCuda publishes it, a message naming what is missing elsewhere. */
class JcNativesTest {

    private static final ClassLoader NOTHING = new ClassLoader(null) {
    };

    @Test
    void versionComesFromTheBuild() {
        assertTrue(JcNatives.VERSION.matches("\\d+\\.\\d+\\.\\d+.*"), JcNatives.VERSION);
    }

    @Test
    void platformNamesFollowJCudasClassifiers() {
        assertEquals("linux-x86_64", JcNatives.platform("Linux", "amd64"));
        assertEquals("linux-aarch64", JcNatives.platform("Linux", "aarch64"));
        assertEquals("apple-aarch64", JcNatives.platform("Mac OS X", "aarch64"));
        assertEquals("windows-x86_64", JcNatives.platform("Windows 11", "amd64"));
        assertEquals("libJCudaDriver-" + JcNatives.VERSION + "-linux-aarch64.so", JcNatives.fileName("Linux", "aarch64"));
        assertEquals("JCudaDriver-" + JcNatives.VERSION + "-windows-x86_64.dll", JcNatives.fileName("Windows 11", "amd64"));
    }

    @Test
    void linuxAarch64NamesTheMissingNativesJar() {
        String why = JcNatives.missing("Linux", "aarch64", NOTHING, "");
        assertNotNull(why);
        assertTrue(why.contains("org.jcuda:jcuda-natives:" + JcNatives.VERSION + ":linux-aarch64"), why);
        assertTrue(why.contains("does not exist") && why.contains("java.library.path"), why);
    }

    @Test
    void macOsNamesTheMissingNativesJar() {
        String why = JcNatives.missing("Mac OS X", "aarch64", NOTHING, "");
        assertNotNull(why);
        assertTrue(why.contains("apple-aarch64") && why.contains("libJCudaDriver-" + JcNatives.VERSION), why);
    }

    @Test
    void aPublishedPlatformWithoutTheJarSaysWhichDependencyToAdd() {
        String why = JcNatives.missing("Linux", "amd64", NOTHING, "");
        assertNotNull(why);
        assertTrue(why.contains("add the dependency org.jcuda:jcuda-natives:" + JcNatives.VERSION + ":linux-x86_64"), why);
    }

    @Test
    void aBindingInTheLibraryPathCounts(@TempDir Path dir) throws Exception {
        Files.createFile(dir.resolve(JcNatives.fileName("Linux", "aarch64")));
        assertNull(JcNatives.missing("Linux", "aarch64", NOTHING, "/nonexistent" + java.io.File.pathSeparator + dir));
    }

    @Test
    void theNativesJarOnThisBuildsClassPathIsFound() {
        String platform = JcNatives.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        String why = JcNatives.missing(System.getProperty("os.name"), System.getProperty("os.arch"),
                JcNatives.class.getClassLoader(), "");
        if (JcNatives.published(platform)) {
            assertNull(why, "sluice-cuda's POM brings jcuda-natives on " + platform);
        } else {
            assertNotNull(why, "no natives jar exists for " + platform);
            assertTrue(why.contains(platform), why);
        }
    }
}
