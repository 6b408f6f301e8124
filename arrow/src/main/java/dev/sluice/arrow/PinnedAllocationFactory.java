package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import java.lang.foreign.Arena;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.BufferLedger;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.memory.RootAllocator;
import org.jspecify.annotations.Nullable;

/**
 * An Arrow {@link AllocationManager.Factory} whose buffers are page-locked host memory of a {@link DeviceContext}
 * ({@link DeviceContext#allocateHost}): every vector built with an allocator of this factory is copied to and from the
 * device by DMA at pinned speed, with no registration and no staging copy. It uses {@code java.lang.foreign} only (no
 * {@code sun.misc.Unsafe}, no Netty), so it needs no JDK flag of its own.
 *
 * <pre>{@code
 * try (DeviceContext ctx = DeviceContext.open();
 *      RootAllocator allocator = PinnedAllocationFactory.of(ctx).newRootAllocator(Long.MAX_VALUE);
 *      Float4Vector x = new Float4Vector("x", allocator)) { ... }
 * }</pre>
 *
 * <p>Accounting, limits, child allocators and the leak report of a closed allocator are Arrow's own: this factory only
 * provides the memory. <b>Resources:</b> Arrow frees a buffer when its last reference is released; the pinned memory
 * then goes back to the context once every copy already enqueued on it has finished (Sluice's rule for its own host
 * buffers). Close every allocator of the factory before its context: the context's close frees whatever pinned memory
 * is still allocated, and Arrow vectors still holding it would then point at freed memory.
 */
public final class PinnedAllocationFactory implements AllocationManager.Factory {

    /** Arrow's zero-length buffer: it is never read or written, and never freed. */
    private static final ArrowBuf EMPTY = new ArrowBuf(ReferenceManager.NO_OP, null, 0,
            Arena.global().allocate(8, 8).address());

    private final DeviceContext context;

    private PinnedAllocationFactory(DeviceContext context) {
        this.context = context;
    }

    /**
     * A factory allocating pinned memory of {@code context}.
     *
     * @throws InvalidArgumentException naming {@code context} if it is null or closed
     */
    public static PinnedAllocationFactory of(DeviceContext context) {
        if (context == null) {
            throw new InvalidArgumentException("context", "must not be null");
        }
        if (context.isClosed()) {
            throw new InvalidArgumentException("context", context + " is closed");
        }
        return new PinnedAllocationFactory(context);
    }

    /** The context whose pinned memory this factory allocates. */
    public DeviceContext context() {
        return context;
    }

    /**
     * A new Arrow root allocator of this factory, holding at most {@code limit} bytes (Arrow's
     * {@link OutOfMemoryException} beyond). Close it, as any Arrow allocator, when its buffers are released: Arrow's
     * {@code close()} throws {@link IllegalStateException} listing the buffers still allocated.
     *
     * @throws InvalidArgumentException naming {@code limit} if it is negative
     */
    public RootAllocator newRootAllocator(long limit) {
        if (limit < 0) {
            throw new InvalidArgumentException("limit", "value " + limit + " is negative");
        }
        return new RootAllocator(RootAllocator.configBuilder().allocationManagerFactory(this).maxAllocation(limit).build());
    }

    /**
     * Allocates {@code size} bytes of zero-filled pinned memory; Arrow calls it after its accounting allowed the size.
     *
     * @throws OutOfMemoryException (Arrow's) with Sluice's {@link DeviceOutOfMemoryException} as the cause, where the
     *                              context has no pinned memory left
     */
    @Override
    public AllocationManager create(BufferAllocator accountingAllocator, long size) {
        try {
            return new PinnedAllocationManager(accountingAllocator, context.allocateHost(DType.U8, size));
        } catch (DeviceOutOfMemoryException e) {
            throw new OutOfMemoryException("no pinned host memory of " + context + " left for " + size + " bytes", e);
        }
    }

    /** Arrow's buffer of zero bytes, which every allocator of this factory hands out for empty vectors. */
    @Override
    public ArrowBuf empty() {
        return EMPTY;
    }

    /** The pinned memory behind {@code buffer} if an allocator of any {@code PinnedAllocationFactory} made it. */
    static @Nullable HostBuffer pinnedBytes(ArrowBuf buffer) {
        if (buffer.getReferenceManager() instanceof BufferLedger ledger
                && ledger.getAllocationManager() instanceof PinnedAllocationManager manager) {
            return manager.bytes();
        }
        return null;
    }

    @Override
    public String toString() {
        return "PinnedAllocationFactory[" + context + "]";
    }
}
