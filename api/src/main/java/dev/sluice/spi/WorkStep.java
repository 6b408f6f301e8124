package dev.sluice.spi;

import dev.sluice.LaunchConfig;
import java.lang.foreign.MemorySegment;

/**
 * One operation of repeated work, described instead of enqueued: what a backend builds an {@link UpdatableGraph} of, and
 * what it updates the graph with when the same shape of work comes again. The public layer has checked every argument
 * (as for the enqueue the step stands for) and keeps the memory and functions alive while a launch of the graph may
 * run.
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

    /** Enqueues the step on {@code stream} as the enqueue it stands for would have (the fallback without a graph). */
    void enqueueOn(StreamHandle stream);

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
        public void enqueueOn(StreamHandle stream) {
            stream.launch(function, config, arguments);
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

        @Override
        public void enqueueOn(StreamHandle stream) {
            stream.copyDeviceToDevice(source, sourceOffset, destination, destinationOffset, bytes);
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

        @Override
        public void enqueueOn(StreamHandle stream) {
            stream.copyHostToDevice(source, destination, destinationOffset, bytes);
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

        @Override
        public void enqueueOn(StreamHandle stream) {
            stream.copyDeviceToHost(source, sourceOffset, destination, bytes);
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

        @Override
        public void enqueueOn(StreamHandle stream) {
            stream.fill(destination, offset, count, elementBytes, bits);
        }
    }
}
