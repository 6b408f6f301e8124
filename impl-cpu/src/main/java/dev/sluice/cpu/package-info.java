/**
 * The CPU backend: a faithful simulator of a GPU in pure Java, the default where no GPU is present and the
 * backend the whole conformance suite runs on in CI. Streams are ordered queues drained off the caller's
 * thread; device memory is native memory host code cannot reach except through copies or mapping; kernels
 * run their {@link dev.sluice.JavaKernel} over the grid with blocks in parallel across the cores; a kernel
 * that throws faults the context like an illegal address on a GPU.
 */
@NullMarked
package dev.sluice.cpu;

import org.jspecify.annotations.NullMarked;
