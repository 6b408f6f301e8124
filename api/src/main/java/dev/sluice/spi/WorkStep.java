package dev.sluice.spi;

import dev.sluice.LaunchConfig;
import java.lang.foreign.MemorySegment;

/**
 * One device operation, described: a copy of any kind, a fill or a kernel launch. The public layer hands every such
 * operation to a stream as a step ({@link StreamHandle#enqueue}), whether it is enqueued at once, held on the host,
 * captured into a graph or recorded by repeated work; a backend builds an {@link UpdatableGraph} of the steps repeated
 * work recorded ({@link #graphable()} ones), and updates the graph with them when the same shape of work comes again.
 * The public layer has checked every argument and keeps the memory and functions alive while the step, or a launch of
 * a graph holding it, may run.
 */
public sealed interface WorkStep {

    /**
     * Whether {@code other} is the same operation with other values, so that a graph made for this step can be updated
     * to run {@code other}: the same kind, function, launch configuration and sizes; only the kernel arguments and the
     * addresses of the memory may differ.
     */
    boolean sameShape(WorkStep other);

    /**
     * Whether {@code other} is the same operation with the same values: a graph node running this step needs no update
     * to run {@code other}.
     */
    boolean sameValues(WorkStep other);

    /**
     * Whether repeated work may record the step into a graph ({@link ContextHandle#buildGraph}): the 2-D copies and the
     * copies between contexts are enqueued as they come instead, ending the recording.
     */
    default boolean graphable() {
        return true;
    }

    /**
     * The step as a value that stays as it is: this step, or for a launch one with its own copy of the arguments (the
     * public layer reuses its instance for the stream's next launch). What a step queued on the host or recorded keeps.
     */
    default WorkStep detached() {
        return this;
    }

    /**
     * A kernel launch. The arguments are the step's own copy, never changed after the step was made.
     *
     * @param function  the loaded kernel
     * @param config    the grid, block, cluster, shared memory and launch attributes
     * @param arguments the resolved arguments
     */
    record Launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments) implements WorkStep {

        @Override
        public boolean sameShape(WorkStep other) {
            return other instanceof Launch l && l.function == function && l.config.equals(config);
        }

        @Override
        public boolean sameValues(WorkStep other) {
            return sameShape(other) && arguments.sameValues(((Launch) other).arguments);
        }

        @Override
        public WorkStep detached() {
            return new Launch(function, config, arguments.copy());
        }

    }

    /**
     * A copy of {@code bytes} between two device buffers of one context.
     *
     * @param source            the memory read
     * @param sourceOffset      where the copy reads, in bytes from the start of {@code source}
     * @param destination       the memory written
     * @param destinationOffset where the copy writes, in bytes from the start of {@code destination}
     * @param bytes             how many bytes
     */
    record Copy(DeviceMemory source, long sourceOffset, DeviceMemory destination, long destinationOffset, long bytes)
            implements WorkStep {

        @Override
        public boolean sameShape(WorkStep other) {
            return other instanceof Copy c && c.bytes == bytes;
        }

        @Override
        public boolean sameValues(WorkStep other) {
            return other instanceof Copy c && c.source == source && c.sourceOffset == sourceOffset
                    && c.destination == destination && c.destinationOffset == destinationOffset && c.bytes == bytes;
        }

    }

    /**
     * A copy of {@code bytes} from page-locked host memory (pinned or registered, of the context the work runs on) to a
     * device buffer. The host memory stays valid while a launch of the graph may run.
     *
     * @param source            the host memory read, {@code bytes} long
     * @param destination       the memory written
     * @param destinationOffset where the copy writes, in bytes from the start of {@code destination}
     * @param bytes             how many bytes
     */
    record Upload(MemorySegment source, DeviceMemory destination, long destinationOffset, long bytes)
            implements WorkStep {

        @Override
        public boolean sameShape(WorkStep other) {
            return other instanceof Upload u && u.bytes == bytes;
        }

        @Override
        public boolean sameValues(WorkStep other) {
            return other instanceof Upload u && u.source.address() == source.address() && u.destination == destination
                    && u.destinationOffset == destinationOffset && u.bytes == bytes;
        }

    }

    /**
     * A copy of {@code bytes} from a device buffer to page-locked host memory (pinned or registered, of the context the
     * work runs on). The host memory stays valid while a launch of the graph may run.
     *
     * @param source       the memory read
     * @param sourceOffset where the copy reads, in bytes from the start of {@code source}
     * @param destination  the host memory written, {@code bytes} long
     * @param bytes        how many bytes
     */
    record Download(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes) implements WorkStep {

        @Override
        public boolean sameShape(WorkStep other) {
            return other instanceof Download d && d.bytes == bytes;
        }

        @Override
        public boolean sameValues(WorkStep other) {
            return other instanceof Download d && d.source == source && d.sourceOffset == sourceOffset
                    && d.destination.address() == destination.address() && d.bytes == bytes;
        }

    }

    /**
     * Sets {@code count} elements of {@code elementBytes} (1, 2, 4 or 8) to the low bits of {@code bits}.
     *
     * @param destination the memory written
     * @param offset      where the fill starts, in bytes from the start of {@code destination}
     * @param count       how many elements
     * @param elementBytes the size of one element
     * @param bits        the value
     */
    record Fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits) implements WorkStep {

        @Override
        public boolean sameShape(WorkStep other) {
            return other instanceof Fill f && f.count == count && f.elementBytes == elementBytes;
        }

        @Override
        public boolean sameValues(WorkStep other) {
            return other instanceof Fill f && f.destination == destination && f.offset == offset && f.count == count
                    && f.elementBytes == elementBytes && f.bits == bits;
        }

    }
    /**
     * A copy of a rectangle of {@code height} rows of {@code widthBytes} bytes from host memory, whose rows start
     * {@code sourcePitch} bytes apart from byte 0 of {@code source}, to {@code destination}, whose rows start
     * {@code destinationPitch} bytes apart from {@code destinationOffset}; the bytes between rows are left as they are.
     * The public layer has checked that both rectangles lie inside their memory and that each pitch is at least
     * {@code widthBytes}. Not {@linkplain #graphable() graphable}.
     */
    record Upload2D(MemorySegment source, long sourcePitch, DeviceMemory destination, long destinationOffset,
            long destinationPitch, long widthBytes, long height) implements Copy2DStep {
    }

    /** {@link Upload2D} the other way: from device memory to host memory. */
    record Download2D(DeviceMemory source, long sourceOffset, long sourcePitch, MemorySegment destination,
            long destinationPitch, long widthBytes, long height) implements Copy2DStep {
    }

    /** {@link Upload2D} between two device buffers of one context. */
    record Copy2D(DeviceMemory source, long sourceOffset, long sourcePitch, DeviceMemory destination,
            long destinationOffset, long destinationPitch, long widthBytes, long height) implements Copy2DStep {
    }

    /**
     * A copy of {@code bytes} between memory of two contexts of one backend (a peer copy on GPUs), enqueued on a stream
     * of the destination's context. Not {@linkplain #graphable() graphable}.
     *
     * @param sourceContext      the context {@code source} belongs to
     * @param destinationContext the context {@code destination} belongs to
     */
    record PeerCopy(ContextHandle sourceContext, DeviceMemory source, long sourceOffset, ContextHandle destinationContext,
            DeviceMemory destination, long destinationOffset, long bytes) implements WorkStep {

        @Override
        public boolean graphable() {
            return false;
        }

        @Override
        public boolean sameShape(WorkStep other) {
            return other instanceof PeerCopy p && p.bytes == bytes;
        }

        @Override
        public boolean sameValues(WorkStep other) {
            return equals(other);
        }
    }

    /** What the three 2-D copies share: none goes into a graph, and two are the same when their records are equal. */
    sealed interface Copy2DStep extends WorkStep permits Upload2D, Download2D, Copy2D {

        @Override
        default boolean graphable() {
            return false;
        }

        @Override
        default boolean sameShape(WorkStep other) {
            return equals(other);
        }

        @Override
        default boolean sameValues(WorkStep other) {
            return equals(other);
        }
    }
}
