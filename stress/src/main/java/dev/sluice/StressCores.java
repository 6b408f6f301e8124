package dev.sluice;

import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;

/**
 * The real {@link StreamCore} with no device behind it, for the stress tests: a backend stream that only records
 * markers, and a {@link CompletionEngine} that was never started.
 *
 * <p>A real engine needs a context and starts a completion thread, far too heavy for the millions of states a stress
 * test makes; the tests call {@link StreamCore#advance()} themselves, as the completion thread does. A core touches its
 * engine only in {@link CompletionEngine#wake()} after queuing a future, which on an engine allocated without its
 * constructor finds nothing sleeping, faulted or stopping and does nothing. So the cores here run the code of the real
 * enqueue ({@link StreamCore#mark}), seal and completion paths, unchanged.
 */
final class StressCores {

    private StressCores() {
    }

    /** A backend marker that is always done: the device has finished everything before it. */
    static final Marker DONE = new Marker() {
        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public boolean awaitDone(long timeoutNanos) {
            return true;
        }

        @Override
        public void release() {
        }

        @Override
        public String toString() {
            return "stress marker (done)";
        }
    };

    private static final CompletionEngine IDLE_ENGINE = idleEngine();

    /** A core whose markers are {@link #DONE}, sharing at most {@code groupBound} operations per marker. */
    static StreamCore core(int groupBound) {
        return new StreamCore(new Stream(null), IDLE_ENGINE, groupBound);
    }

    /** A core whose backend refuses every marker with {@code refusal}. */
    static StreamCore refusingCore(int groupBound, RuntimeException refusal) {
        return new StreamCore(new Stream(refusal), IDLE_ENGINE, groupBound);
    }

    /** Enqueues one operation on {@code core} the way {@link DeviceStream} does: marked under the stream's lock. */
    static DeviceFuture<Void> enqueue(StreamCore core) {
        core.lock();
        try {
            return core.mark(null, null, null, null);
        } finally {
            core.unlock();
        }
    }

    private static CompletionEngine idleEngine() {
        try {
            // through reflection alone: naming sun.misc.Unsafe makes javac warn of an internal API on every build
            Class<?> type = Class.forName("sun.misc.Unsafe");
            Field f = type.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            Object unsafe = f.get(null);
            return (CompletionEngine) type.getMethod("allocateInstance", Class.class).invoke(unsafe, CompletionEngine.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A backend stream that records markers (or refuses them) and does nothing else. */
    private static final class Stream implements StreamHandle {
        private final RuntimeException refusal;

        Stream(RuntimeException refusal) {
            this.refusal = refusal;
        }

        @Override
        public Marker recordMarker() {
            if (refusal != null) {
                throw refusal;
            }
            return DONE;
        }

        @Override
        public void synchronize() {
        }

        @Override
        public void copyHostToDevice(MemorySegment source, DeviceMemory destination, long destinationOffset, long bytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void copyDeviceToHost(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void copyDeviceToDevice(DeviceMemory source, long sourceOffset, DeviceMemory destination,
                long destinationOffset, long bytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void copyPeer(ContextHandle sourceContext, DeviceMemory source, long sourceOffset,
                ContextHandle destinationContext, DeviceMemory destination, long destinationOffset, long bytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits) {
            throw new UnsupportedOperationException();
        }

        @Override
        public DeviceMemory allocate(long bytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void free(DeviceMemory memory) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void record(EventHandle event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void waitEvent(EventHandle event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void waitMarker(Marker marker) {
            throw new UnsupportedOperationException();
        }

        @Override
        public HostGate enqueueHostGate() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void destroy() {
        }
    }
}
