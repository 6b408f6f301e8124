package dev.sluice.reactive;

/**
 * How far a {@link GpuPipeline} has got, as reported to {@link GpuPipeline#onProgress}: counted over every subscription
 * since the pipeline was built.
 *
 * @param chunksDone results emitted downstream
 * @param bytesDone  bytes of those results ({@link GpuPipeline#outputType()} elements)
 */
public record PipelineProgress(long chunksDone, long bytesDone) {

    /**
     * @throws dev.sluice.InvalidArgumentException naming {@code chunksDone} or {@code bytesDone} if negative: no
     *         pipeline reports less than nothing done
     */
    public PipelineProgress {
        if (chunksDone < 0) {
            throw new dev.sluice.InvalidArgumentException("chunksDone", "value " + chunksDone + " is negative");
        }
        if (bytesDone < 0) {
            throw new dev.sluice.InvalidArgumentException("bytesDone", "value " + bytesDone + " is negative");
        }
    }
}
