package dev.sluice.stress;

import dev.sluice.engine.Operation;
import dev.sluice.engine.StreamOrder;
import dev.sluice.engine.StressProbe;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.WorkStep;

/**
 * The real {@code StreamOrder} with no device behind it, for the stress tests: a backend stream that only records
 * markers, in a context whose completion thread never starts ({@link StressProbe#core}).
 *
 * <p>A running completion thread would be far too heavy for the millions of states a stress test makes; the tests
 * call {@code StreamOrder.advance()} themselves, as the completion thread does. A core touches its engine only in
 * {@code CompletionPoller.wake()} after queuing a future, which on an engine never started finds nothing sleeping,
 * faulted or stopping and does nothing. So the cores here run the code of the real enqueue ({@code StreamOrder.mark}),
 * seal and completion paths, unchanged.
 */
final class StressCores {

    private StressCores() {
    }

    /** A stream core of at most {@code groupBound} operations per marker, whose markers are all done. */
    static StreamOrder core(int groupBound) {
        return StressProbe.core(new Stream(null), groupBound);
    }

    /** A stream core whose backend refuses every marker with {@code refusal}. */
    static StreamOrder refusingCore(int groupBound, RuntimeException refusal) {
        return StressProbe.core(new Stream(refusal), groupBound);
    }

    /** Enqueues an operation on {@code core}, as an enqueue marks one under the stream's lock. */
    static Operation<Void> enqueue(StreamOrder core) {
        return StressProbe.enqueue(core);
    }

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
            return Marker.DONE; // every operation is finished at once
        }

        @Override
        public void synchronize() {
        }

        @Override
        public void enqueue(WorkStep step) {
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
