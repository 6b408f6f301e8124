/**
 * Kernels written once, starting at {@link dev.sluice.kernel.Kernels}: {@link dev.sluice.kernel.ElementwiseBuilder}
 * declares a kernel by a body in a small C-like language, from which Sluice generates the CUDA C++ that NVRTC and
 * hiprtc compile and the Java bytecode the CPU backend runs; the result is an ordinary {@link dev.sluice.Kernel}.
 * {@link dev.sluice.kernel.FusedBuilder} fuses a chain of such declarations into one kernel whose intermediates stay in
 * registers.
 * {@link dev.sluice.kernel.ReductionBuilder} declares a reduction the same way, a {@link dev.sluice.kernel.Reduction}
 * that {@link dev.sluice.kernel.DeviceReduction} launches. The parser, type checker and code generators are
 * package-private; errors in the source are {@link dev.sluice.CompilationException}s raised when the kernel is built,
 * with the line and column: so is source over a limit (expressions nested deeper than 64 levels of parentheses, unary
 * operators, casts, call arguments and {@code ?:} branches; bytecode over the JVM's 64 KiB or 65,535 local slots of
 * one method). Left-associative chains such as a sum of thousands of terms have no limit of their own. A generated
 * kernel's launch refuses an element count past one of its buffers ({@link dev.sluice.Kernel.Builder#elementCount}).
 */
@NullMarked
package dev.sluice.kernel;

import org.jspecify.annotations.NullMarked;
