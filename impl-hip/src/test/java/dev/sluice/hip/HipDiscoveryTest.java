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
            HipApiLibrary lib = HipApiLibrary.load(null, null);
            assertTrue(lib.tried().getLast().endsWith(": loaded"), lib.tried().toString());
        } catch (HipApiLibrary.NotFound e) {
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
        var pool = new dev.sluice.spi.support.StagingPool(new dev.sluice.spi.support.PinnedMemory() {
            @Override
            public long allocate(long bytes, boolean mapped) {
                throw new AssertionError("no allocation in this test");
            }

            @Override
            public long devicePointer(long host) {
                throw new AssertionError();
            }

            @Override
            public void free(long host) {
            }
        }, HipContext.STAGING_SMALLEST, HipContext.STAGING_LARGEST, Integer.MAX_VALUE);
        assertEquals(0, pool.sizeClass(1));
        assertEquals(0, pool.sizeClass(64 << 10));
        assertEquals(1, pool.sizeClass((64 << 10) + 1));
        assertEquals(7, pool.sizeClass(HipContext.STAGING_LARGEST));
        assertEquals(7, pool.sizeClass(HipContext.STAGING_LARGEST * 3), "a longer copy goes through several largest buffers");
    }

    @Test
    void cacheKeysDependOnEveryPart() {
        String a = dev.sluice.spi.support.KernelCache.key(List.of("hip", "x", "src"));
        assertEquals(64, a.length());
        assertEquals(a, dev.sluice.spi.support.KernelCache.key(List.of("hip", "x", "src")));
        assertFalse(a.equals(dev.sluice.spi.support.KernelCache.key(List.of("hip", "xs", "rc"))));
    }
}
