/**
 * GPU stages inside Apache Flink jobs: {@link dev.sluice.flink.SluiceAsyncFunction}, a {@code RichAsyncFunction} for
 * {@code AsyncDataStream.orderedWait} or {@code unorderedWait} whose elements run over per-subtask
 * {@link dev.sluice.flink.GpuLane lanes} on the device {@link dev.sluice.flink.DeviceAssignment assigned} to the
 * subtask's slot, with one reference-counted {@link dev.sluice.DeviceContext} per device and TaskManager. Arrow record
 * batches travel as {@link dev.sluice.flink.ArrowBatch}es through {@link dev.sluice.flink.ArrowBatches#kernel}; only the
 * classes named {@code Arrow*} need Arrow on the class path; {@link dev.sluice.flink.ImmutableTypeInfo} spares large
 * elements of other types Flink's copy. See
 * {@code docs/flink.md} for deployment.
 */
@NullMarked
package dev.sluice.flink;

import org.jspecify.annotations.NullMarked;
