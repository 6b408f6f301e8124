package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.HostBuffer;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The pinned staging buffers of one place in a lane ({@link Flight}): the chunk is copied into {@link #in()} on the
 * host and uploaded from it, and its result downloaded into {@link #out()} and read out of it on the host. Each is
 * allocated from the lane's context on first need (a pipeline fed pinned {@link HostBuffer}s never stages its input,
 * one downloading into {@link ChunkTarget} buffers never its output) and kept with the lane until it is released.
 * Drain loop only, but for the result read out early ({@link Flight}), after the download has finished.
 */
final class StagingBuffers {

    private final Lane lane;
    private @Nullable HostBuffer in;
    private @Nullable HostBuffer out;

    StagingBuffers(Lane lane) {
        this.lane = lane;
    }

    /** The input staging buffer, of {@code chunkElements}: allocated now if it was not. */
    HostBuffer in() {
        HostBuffer b = in;
        if (b == null) {
            PipelineSpec spec = lane.spec();
            b = allocate(spec.inputType(), spec.chunkElements());
            in = b;
        }
        return b;
    }

    /** The output staging buffer, of the output capacity: allocated now if it was not. */
    HostBuffer out() {
        HostBuffer b = out;
        if (b == null) {
            PipelineSpec spec = lane.spec();
            b = allocate(spec.outputType(), spec.outputCapacity());
            out = b;
        }
        return b;
    }

    /** The output staging buffer, or null if none was allocated (no result was ever downloaded into staging). */
    @Nullable HostBuffer outIfAllocated() {
        return out;
    }

    /** Adds the buffers allocated to {@code into}, for the lane's release. */
    void addTo(List<HostBuffer> into) {
        if (in != null) {
            into.add(in);
        }
        if (out != null) {
            into.add(out);
        }
    }

    private HostBuffer allocate(DType type, long count) {
        HostBuffer h = lane.context().allocateHost(type, count);
        lane.metrics().hostAllocations.increment();
        return h;
    }
}
