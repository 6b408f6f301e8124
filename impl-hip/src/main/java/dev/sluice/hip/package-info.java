/**
 * The HIP backend: AMD GPUs through the HIP runtime ({@code libamdhip64}) and hiprtc, bound with
 * {@code java.lang.foreign} (no JNI, no native code of Sluice's own). Three layers, as in the CUDA backend, each
 * shown by its classes' names:
 * <ul>
 * <li><b>bindings</b>, named {@code HipApi…}: {@link dev.sluice.hip.HipApi} (one method per call, status codes
 * turned into typed exceptions carrying HIP's error name), {@code HipApiLibrary} (library discovery, lazily
 * looked-up downcall handles), {@code HipApiSymbol}, {@code HipApiConstants}, {@code HipApiErrors};
 * <li><b>handles</b>, named without the {@code Hip} prefix: {@code RuntimeEvents} and {@code RuntimePinnedMemory}
 * (the runtime's side of the backend kit), {@code LaunchBlock}, {@code Reaper}, {@code KernelCompiler};
 * <li><b>SPI implementations</b>, named {@code Hip…}: {@link dev.sluice.hip.HipBackend}, {@code HipContext},
 * {@code HipStream}, {@code HipModule}.
 * </ul>
 * No layer names a higher one; {@code LayerNamingTest} checks it on the compiled classes. What the CUDA and HIP
 * backends share comes from the backend kit, {@link dev.sluice.spi.support}. Device properties are read only
 * through {@code hipDeviceGetAttribute}, never through {@code hipDeviceProp_t}, whose layout changes between HIP
 * versions. See docs/hip.md, and CONTRIBUTING.md for what was verified and how.
 */
@NullMarked
package dev.sluice.hip;

import org.jspecify.annotations.NullMarked;
