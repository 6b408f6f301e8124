package dev.sluice.reactive;

/**
 * How far a {@link GpuPipeline} has got, as reported to {@link GpuPipeline#onProgress}: counted over every subscription
 * since the pipeline was built.
 *
 * @param chunksDone results emitted downstream
 * @param bytesDone  bytes of those results ({@link GpuPipeline#outputType()} elements)
 */
public record PipelineProgress(long chunksDone, long bytesDone) {
}
