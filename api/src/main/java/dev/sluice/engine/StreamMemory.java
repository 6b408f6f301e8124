package dev.sluice.engine;

import dev.sluice.OperationKind;
import dev.sluice.spi.DeviceMemory;
import java.util.List;
import java.util.function.Function;

/**
 * One stream's allocations and frees in stream order: an allocation is made on the stream and noted as written by it
 * (other streams' first uses wait for the memory to exist); a free waits, on the device, for every other stream's
 * pending use, what repeated work has recorded on the memory included, and runs in the stream's order after its own.
 * Each takes the stream's lock through its {@link StreamEnqueuer}.
 */
public final class StreamMemory {

    private final StreamEnqueuer stream;
    private final ContextRuntime context;

    StreamMemory(StreamEnqueuer stream, ContextRuntime context) {
        this.stream = stream;
        this.context = context;
    }

    /**
     * Allocates {@code bytes} of device memory in stream order and returns the buffer {@code buffer} makes of it;
     * {@code ready} makes the buffer's future, which completes with the allocation.
     */
    public <B> B allocate(long bytes, Function<Allocation, B> buffer, Function<B, ? extends Operation<?>> ready) {
        stream.begin();
        try {
            DeviceMemory memory = stream.handle.allocate(bytes);
            Allocation allocation = new Allocation(context, memory, stream);
            B b = buffer.apply(allocation);
            Operation<?> f = stream.mark(ready.apply(b), OperationKind.ALLOC, null);
            if (stream.claims().ordering() && !stream.isCapturing()) {
                stream.claims().allocated(allocation, f, bytes); // other streams' first uses wait for the memory to exist
            }
            context.track(allocation);
            context.allocated(bytes);
            return b;
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
    }

    /** Frees {@code allocation}, which its owner closed, after every pending use of every stream. */
    public <F extends Operation<?>> F free(F f, Allocation allocation) {
        return freeInOrder(f, allocation);
    }

    void freeInOrder(Allocation allocation) {
        freeInOrder(new InternalOperation(), allocation);
    }

    private <F extends Operation<?>> F freeInOrder(F f, Allocation allocation) {
        Recording.submitOnOtherStreams(allocation, stream); // what they recorded on it is among their uses then
        List<Operation<?>> others = allocation.uses.pendingUses(stream.core);
        for (Operation<?> use : others) {
            use.seal(); // a device-side wait needs the use's marker; sealed before this stream's lock is taken
        }
        context.retire(allocation, others); // the context's close must not free it under another context's pending use
        stream.begin();
        try {
            for (Operation<?> use : others) {
                stream.waitMarkerLocked(use);
            }
            stream.handle.free(allocation.memory);
            context.untrack(allocation);
            context.freed(allocation.memory.byteSize());
            return stream.mark(f, OperationKind.FREE, null);
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
    }

    /** Enqueues, on this stream, a wait for every other stream's pending use of {@code allocation}. */
    public void waitForUses(Allocation allocation) {
        Recording.submitOnOtherStreams(allocation, stream);
        for (Operation<?> use : allocation.uses.pendingUses(stream.core)) {
            stream.waits().waitFor(new InternalOperation(), use);
        }
    }
}
