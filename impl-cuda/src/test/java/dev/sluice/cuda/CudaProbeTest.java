package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.BackendUnavailableException;
import dev.sluice.DeviceContext;
import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** What runs everywhere, CI included: the backend registers, probes without throwing, and explains an absent driver. */
class CudaProbeTest {

    @Test
    void backendIsRegisteredAsAService() {
        boolean found = ServiceLoader.load(Backend.class).stream().anyMatch(p -> p.type() == CudaBackend.class);
        assertTrue(found, "META-INF/services/dev.sluice.spi.Backend must list dev.sluice.cuda.CudaBackend");
        assertEquals(Api.CUDA.id(), new CudaBackend().name());
    }

    @Test
    void probeNeverThrowsAndListsWhatItTried() {
        BackendProbe p = new CudaBackend().probe();
        assertNotNull(p);
        assertFalse(p.tried().isEmpty(), "the probe lists the libraries it tried: " + p);
        if (!p.available()) {
            assertEquals(0, p.deviceCount());
            assertTrue(p.tried().stream().anyMatch(t -> t.contains("libcuda")), "libcuda is among what was tried: " + p.tried());
            System.out.println("CUDA backend unavailable here (expected without a GPU): " + p.version() + "; tried " + p.tried());
        } else {
            System.out.println("CUDA backend: " + p.version() + ", devices " + p.devices());
        }
        assertEquals(p, new CudaBackend().probe(), "the probe is cached");
    }

    @Test
    void detectNamesTheCudaBackend() {
        String d = DeviceContext.detect();
        assertTrue(d.contains("cuda"), d);
    }

    @Test
    void openingWithoutADeviceIsAClearError() {
        if (DeviceContext.deviceCount(Api.CUDA) > 0) {
            return; // a GPU is present: CudaBackendTest covers opening
        }
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> DeviceContext.open(Api.CUDA, 0));
        assertTrue(e.getMessage().contains("libcuda") || e.getMessage().contains("device"), e.getMessage());
    }

    @Test
    void nvrtcCandidatesCoverVersionsAndCudaHome() {
        var c = Nvrtc.candidates();
        assertTrue(c.contains("libnvrtc.so.13") && c.contains("libnvrtc.so.12") && c.contains("libnvrtc.so.11.2"), c.toString());
        assertTrue(c.stream().anyMatch(s -> s.startsWith("/usr/local/cuda/lib64/")), c.toString());
    }

    @Test
    void cacheKeyDependsOnEveryInput() {
        var opts = java.util.List.of("-O3");
        String k = ModuleLoader.key("k", "src", opts, "sm_90", "13.0", "cubin");
        assertEquals(k, ModuleLoader.key("k", "src", opts, "sm_90", "13.0", "cubin"));
        assertFalse(k.equals(ModuleLoader.key("k", "src2", opts, "sm_90", "13.0", "cubin")));
        assertFalse(k.equals(ModuleLoader.key("k", "src", java.util.List.of(), "sm_90", "13.0", "cubin")));
        assertFalse(k.equals(ModuleLoader.key("k", "src", opts, "sm_80", "13.0", "cubin")));
        assertFalse(k.equals(ModuleLoader.key("k", "src", opts, "sm_90", "12.6", "cubin")));
        assertFalse(k.equals(ModuleLoader.key("k", "src", opts, "sm_90", "13.0", "ptx")));
    }
}
