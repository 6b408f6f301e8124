/**
 * The HIP backend: AMD GPUs through the HIP runtime ({@code libamdhip64}) and hiprtc, bound with
 * {@code java.lang.foreign} (no JNI, no native code of Sluice's own). Three layers, as in the CUDA backend:
 * {@link dev.sluice.hip.HipLibrary} and {@link dev.sluice.hip.HipApi} (library discovery, lazily looked-up
 * downcall handles, status codes turned into typed exceptions carrying HIP's error name); the handle
 * classes ({@code HipEventPool}, {@code HipGateSlots}, {@code HipStaging}, {@code HipLaunchBlock},
 * {@code HipModule}...); and the SPI implementations ({@link dev.sluice.hip.HipBackend},
 * {@code HipContext}, {@code HipStream}...). Device properties are read only through
 * {@code hipDeviceGetAttribute}, never through {@code hipDeviceProp_t}, whose layout changes between HIP
 * versions. See docs/hip.md for what was verified and how.
 */
@NullMarked
package dev.sluice.hip;

import org.jspecify.annotations.NullMarked;
