package dev.sluice.hip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spi.BackendProbe;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Library discovery and probing never throw, and say what they tried. No HIP library needed. */
class HipDiscoveryTest {

    @Test
    void aMissingFileIsAnUnavailableProbeNamingIt() {
        BackendProbe p = new HipBackend("/nonexistent/libamdhip64.so.6", null).probe();
        assertFalse(p.available());
        assertEquals(0, p.deviceCount());
        assertEquals(List.of("/nonexistent/libamdhip64.so.6 (-Dsluice.hip.library): no such file"), p.tried());
        assertTrue(p.version().contains("libamdhip64"), p.version());
    }

    @Test
    void aLibraryThatIsNotHipIsAnUnavailableProbeListingWhatItLacks() {
        BackendProbe p = new HipBackend("libc.so.6", null).probe();
        assertFalse(p.available());
        assertTrue(p.tried().getFirst().contains("lacks"), p.tried().toString());
        assertTrue(p.tried().getFirst().contains("hipModuleLaunchKernel"), p.tried().toString());
    }

    @Test
    void discoveryTriesTheUsualNamesAndFolders() throws Exception {
        try {
            HipLibrary lib = HipLibrary.load(null, null);
            assertTrue(lib.tried().getLast().endsWith(": loaded"), lib.tried().toString());
        } catch (HipLibrary.NotFound e) {
            String all = String.join("\n", e.tried);
            for (String name : List.of("libamdhip64.so:", "libamdhip64.so.6:", "libamdhip64.so.5:", "/opt/rocm/lib/libamdhip64.so")) {
                assertTrue(all.contains(name), name + " in " + all);
            }
        }
    }

    @Test
    void versionsPrintLikeHip() {
        assertEquals("5.2.21153", HipBackend.longVersion(50_221_153));
        assertEquals("5.2", HipBackend.shortVersion(50_221_153));
        assertEquals("6.3", HipBackend.shortVersion(60_342_134));
        assertEquals("13.0", HipBackend.shortVersion(13_000));
    }

    @Test
    void stagingSizeClassesArePowersOfTwoUpToAChunk() {
        assertEquals(0, HipStaging.sizeClass(1));
        assertEquals(0, HipStaging.sizeClass(64 << 10));
        assertEquals(1, HipStaging.sizeClass((64 << 10) + 1));
        assertEquals(7, HipStaging.sizeClass(HipStaging.CHUNK));
    }

    @Test
    void cacheKeysDependOnEveryPart() {
        String a = KernelCache.key(List.of("hip", "x", "src"));
        assertEquals(64, a.length());
        assertEquals(a, KernelCache.key(List.of("hip", "x", "src")));
        assertFalse(a.equals(KernelCache.key(List.of("hip", "xs", "rc"))));
    }
}
