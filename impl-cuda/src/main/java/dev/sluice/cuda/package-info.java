/**
 * The CUDA backend, in three layers as in cudarc: {@link dev.sluice.cuda.Cu} and {@link dev.sluice.cuda.Jc}
 * turn driver calls ({@code java.lang.foreign} on the hot path, JCuda for the breadth of the API) and their
 * {@code CUresult}s into typed exceptions; handle classes ({@code DriverContext}, {@code EventPool},
 * {@code MappedFlags}, {@code Staging}, {@code ModuleLoader}, {@code Nvrtc},
 * {@code KernelCache}) own native resources; the SPI implementations ({@code CudaBackend}, {@code CudaContext},
 * {@code CudaStream}, markers, gates, events, functions, graphs) sit on top.
 *
 * <p>Choices, and the runs behind them, are in {@code docs/gpu-runs.md}: launches through FFM with one reused
 * argument block per stream (JCuda's marshalling cost 2.3-3× C); completion markers are pooled events recorded
 * after each operation (stream counters written with {@code cuStreamWriteValue64} cost more per call and were dropped);
 * host gates are {@code cuStreamWaitValue32} on a host-mapped flag ({@code -Dsluice.cuda.gates=kernel} for a
 * polling kernel); copies from unpinned host memory are staged through pinned chunks in stream order without
 * blocking the caller; a device fault poisons the device for the whole process, as the CUDA driver does.
 */
@NullMarked
package dev.sluice.cuda;

import org.jspecify.annotations.NullMarked;
