/**
 * GPU stages inside Apache Spark jobs, through Spark's public Java interfaces only.
 * {@link dev.sluice.spark.SluiceSparkPlugin} (an executor plugin, {@code spark.plugins}) opens one reference-counted
 * {@link dev.sluice.DeviceContext} per device an executor is given and shows their figures in Spark's metric system;
 * {@link dev.sluice.spark.GpuPartitionStage} is a {@code MapPartitionsFunction} that batches a partition's rows into
 * pinned Arrow vectors and runs them through bounded, overlapping lanes ({@link dev.sluice.arrow.ArrowPipeline}) on the
 * task's device, streaming results back as the partition is consumed; {@link dev.sluice.spark.GpuArrowStage} does the
 * same for Arrow record batches, and {@link dev.sluice.spark.ColumnarBatches} hands Arrow results to Spark as
 * {@code ColumnarBatch}es of {@code ArrowColumnVector}s. See {@code docs/spark.md} for deployment.
 */
@NullMarked
package dev.sluice.spark;

import org.jspecify.annotations.NullMarked;
