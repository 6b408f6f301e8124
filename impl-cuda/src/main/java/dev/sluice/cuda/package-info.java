/**
 * The CUDA backend, in three layers as in cudarc, each shown by its classes' names:
 * <ul>
 * <li><b>bindings</b>, named {@code Cu…}, {@code Jc…} or {@code Nvrtc…} after the library they bind: {@link dev.sluice.cuda.Cu}
 * (the driver through {@code java.lang.foreign}, on the hot path), {@code Jc} (the driver through JCuda, for the
 * breadth of the API), {@code Nvrtc}, and the library discovery {@code CuLibrary} and {@code JcNatives}. They turn
 * native calls and their {@code CUresult}s into typed exceptions and know nothing above them;
 * <li><b>handles</b>, named without those prefixes: owned native objects and the driver's side of the backend kit
 * ({@code DriverContext}, {@code DriverEvents}, {@code DriverPinnedMemory}, {@code Staging}, {@code ModuleLoader},
 * {@code MarkerWaiter}...);
 * <li><b>SPI implementations</b>, named {@code Cuda…}: {@code CudaBackend}, {@code CudaContext}, {@code CudaStream},
 * {@code CudaFunction}, {@code CudaMarkers} (a stream's completion markers), {@code CudaStagedMarker}.
 * </ul>
 * No layer names a higher one; {@code LayerNamingTest} checks it on the compiled classes. What the CUDA and HIP
 * backends share (event pool and markers, host gates, staging buffers, the fault registry, memory freed once, user
 * events and graphs, the kernel cache) comes from the backend kit, {@link dev.sluice.spi.support}.
 *
 * <p>Choices, and the figures behind them, are in {@code docs/decisions/}: launches through FFM with one reused
 * argument block per stream (JCuda's marshalling cost 2.3-3× C); completion markers are pooled events recorded
 * on the work stream (a counter written there serialised streams), and a marker stream per work stream writes each
 * marker's number into a host-mapped counter after its event, so that completion is read from memory instead of
 * polled through the driver ({@code docs/decisions/0012-completion-counters.md});
 * host gates are {@code cuStreamWaitValue32} on a host-mapped flag ({@code -Dsluice.cuda.gates=kernel} for a
 * polling kernel); copies from unpinned host memory are staged through pinned chunks in stream order without
 * blocking the caller; a device fault poisons the device for the whole process, as the CUDA driver does.
 */
@NullMarked
package dev.sluice.cuda;

import org.jspecify.annotations.NullMarked;
