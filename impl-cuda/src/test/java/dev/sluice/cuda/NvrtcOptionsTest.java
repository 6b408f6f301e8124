package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The option list given to NVRTC, assembled without a GPU: a kernel's own architecture option wins over Sluice's. */
class NvrtcOptionsTest {

    private static final String SLUICE = "--gpu-architecture=sm_90";

    @Test
    void withoutAnArchitectureOfItsOwnTheKernelGetsTheDevicesFirst() {
        assertEquals(List.of(SLUICE), Nvrtc.optionList(SLUICE, List.of()));
        assertEquals(List.of(SLUICE, "-O3", "-DN=4"), Nvrtc.optionList(SLUICE, List.of("-O3", "-DN=4")));
        assertNull(Nvrtc.architecture(List.of("-O3", "--use_fast_math", "-DARCH=sm_80", "--gpu-architecture-x=1")));
    }

    @Test
    void theKernelsArchitectureReplacesSluicesInEverySpelling() {
        for (List<String> own : List.of(List.of("--gpu-architecture=compute_80"), List.of("-arch=sm_80"),
                List.of("-O3", "-arch", "sm_80"), List.of("--gpu-architecture", "compute_80", "-O3"))) {
            assertEquals(own, Nvrtc.optionList(SLUICE, own), "one architecture option only, the kernel's: " + own);
        }
        assertEquals("compute_80", Nvrtc.architecture(List.of("--gpu-architecture=compute_80")));
        assertEquals("sm_80", Nvrtc.architecture(List.of("-O3", "-arch", "sm_80")));
    }
}
