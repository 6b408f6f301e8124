/**
 * Runnable examples. {@link dev.sluice.examples.Demo} is the pipeline the README runs; the others port the
 * reference pages' examples and print what those pages document: {@link dev.sluice.examples.ScalarAdd},
 * {@link dev.sluice.examples.PrintThreads}, {@link dev.sluice.examples.MapToHost} and
 * {@link dev.sluice.examples.TwoStreams}. Every kernel carries CUDA C++ source (compiled by NVRTC on CUDA and by
 * hiprtc on HIP) and a Java implementation (run by the CPU backend), so each example runs on every backend;
 * pick one with {@code -Dsluice.api=cpu|cuda|hip}.
 */
@NullMarked
package dev.sluice.examples;

import org.jspecify.annotations.NullMarked;
