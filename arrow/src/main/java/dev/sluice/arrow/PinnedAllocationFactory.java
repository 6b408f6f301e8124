package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.InvalidArgumentException;
import java.lang.foreign.Arena;
import java.lang.ref.Cleaner;
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
 *      PinnedAllocationFactory pinned = PinnedAllocationFactory.of(ctx);
 *      RootAllocator allocator = pinned.newRootAllocator(Long.MAX_VALUE);
 *      Float4Vector x = new Float4Vector("x", allocator)) { ... }
 * }</pre>
 *
 * <p>Accounting, limits, child allocators and the leak report of a closed allocator are Arrow's own: this factory only
 * provides the memory, and a buffer counts as allocated, at the size Arrow asked for, while Arrow holds it.
 *
 * <p><b>Pool:</b> pinning memory takes milliseconds per buffer on a GPU, so the factory takes its buffers from a
 * {@link HostBufferPool} and gives back those Arrow releases: its own, of {@link #poolLimit()} bytes
 * ({@link #DEFAULT_POOL_BYTES} unless given to {@link #of(DeviceContext, long)}), or one the caller shares with other
 * users of pinned memory ({@link #of(HostBufferPool)}): a steady stream of batches of like sizes pins no new memory. A
 * released buffer becomes reusable only once every copy enqueued on it has finished on the device
 * ({@link HostBuffer#whenIdle()}), so a vector closed while its copy is in flight keeps its memory for the copy. A buffer
 * is its allocation's size rounded up to the pool's size class ({@link HostBufferPool#sizeClass}: at most 12.5% more;
 * powers of two, which Arrow's own rounding asks for below 16 MiB, are classes already; above, Arrow asks for exact
 * sizes, and batches a few percent apart still share a class); the bytes beyond the size are not Arrow's. Newly pinned
 * memory is zero-filled; reused memory holds what its last user left, as with Arrow's own allocation managers (Arrow's
 * vectors zero the buffers they need zeroed when they allocate them). When the pool is full the oldest reusable buffers
 * are freed first.
 *
 * <p><b>Resources:</b> {@link #close()} closes the factory's own pool: it frees the pooled memory (a buffer still
 * waiting for its copies once they have finished) and stops pooling; the factory's allocators keep working, each buffer
 * freed when Arrow releases it. A shared pool is its owner's to close. A factory that becomes unreachable unclosed is
 * closed by a cleaner, and the context's close frees whatever pinned memory is still allocated, pooled or not. Close
 * every allocator of the factory before its context: Arrow vectors still holding its memory would then point at freed
 * memory.
 */
public final class PinnedAllocationFactory implements AllocationManager.Factory, AutoCloseable {

    static {
        ArrowDefaults.ensure(); // before EMPTY, whose ArrowBuf initializes Arrow's allocators
    }

    /** Arrow's zero-length buffer: it is never read or written, and never freed. */
    private static final ArrowBuf EMPTY = new ArrowBuf(ReferenceManager.NO_OP, null, 0,
            Arena.global().allocate(8, 8).address());

    /** The pool's limit unless one is given: {@link HostBufferPool#DEFAULT_LIMIT_BYTES}, 256 MiB. */
    public static final long DEFAULT_POOL_BYTES = HostBufferPool.DEFAULT_LIMIT_BYTES;

    /** Closes the pools of factories that became unreachable unclosed (so the leak detector sees no pooled buffer). */
    private static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "sluice-arrow-pool-cleaner");
        t.setDaemon(true);
        return t;
    });

    private final DeviceContext context;
    private final HostBufferPool pool;
    private final Cleaner.Cleanable cleanable;

    private PinnedAllocationFactory(HostBufferPool pool, boolean ownsPool) {
        this.context = pool.context();
        this.pool = pool;
        HostBufferPool p = pool; // the cleaning action must not hold the factory
        this.cleanable = CLEANER.register(this, ownsPool ? p::close : () -> { });
    }

    /**
     * A factory allocating pinned memory of {@code context}, pooling up to {@link #DEFAULT_POOL_BYTES} of released
     * buffers.
     *
     * @throws InvalidArgumentException naming {@code context} if it is null or closed
     */
    public static PinnedAllocationFactory of(DeviceContext context) {
        return of(context, DEFAULT_POOL_BYTES);
    }

    /**
     * A factory allocating pinned memory of {@code context}, pooling up to {@code poolLimit} bytes of released buffers
     * for reuse (see the class description); 0 pools nothing, and each buffer is then exactly the size Arrow asks for.
     *
     * @throws InvalidArgumentException naming {@code context} if it is null or closed, or {@code poolLimit} if it is
     *                                  negative
     */
    public static PinnedAllocationFactory of(DeviceContext context, long poolLimit) {
        if (context == null) {
            throw new InvalidArgumentException("context", "must not be null");
        }
        if (context.isClosed()) {
            throw new InvalidArgumentException("context", context + " is closed");
        }
        if (poolLimit < 0) {
            throw new InvalidArgumentException("poolLimit", "value " + poolLimit + " is negative");
        }
        return new PinnedAllocationFactory(HostBufferPool.of(context, poolLimit), true);
    }

    /**
     * A factory allocating pinned memory from {@code pool}, which it shares with the pool's other users (pipelines'
     * staging, other factories): Arrow's buffers are taken from it and given back to it when Arrow releases them. The
     * factory's {@link #close()} leaves the pool open; close the pool after every allocator of the factory.
     *
     * @throws InvalidArgumentException naming {@code pool} if it is null or closed, or its context is closed
     */
    public static PinnedAllocationFactory of(HostBufferPool pool) {
        if (pool == null) {
            throw new InvalidArgumentException("pool", "must not be null");
        }
        if (pool.isClosed() || pool.context().isClosed()) {
            throw new InvalidArgumentException("pool", pool + " is closed");
        }
        return new PinnedAllocationFactory(pool, false);
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
     * Allocates {@code size} bytes of pinned memory, Arrow's size after its rounding, once Arrow's accounting allowed it:
     * a pooled buffer of the size class if one is reusable, else newly pinned, zero-filled memory.
     *
     * @throws OutOfMemoryException     (Arrow's) with Sluice's {@link DeviceOutOfMemoryException} as the cause, where
     *                                  the context has no pinned memory left, even after the pool freed its buffers
     * @throws InvalidArgumentException naming {@code accountingAllocator} if it is null, or {@code size} if it is not
     *                                  positive (Arrow asks for none: a buffer of 0 bytes is {@link #empty()}); nothing
     *                                  is taken from the pool then
     */
    @Override
    public AllocationManager create(BufferAllocator accountingAllocator, long size) {
        // Checked before the pool gives memory out: a refusal after it would lose that memory until the context closes.
        if (accountingAllocator == null) {
            throw new InvalidArgumentException("accountingAllocator", "must not be null");
        }
        if (size < 1) {
            throw new InvalidArgumentException("size", "value " + size + " must be at least 1");
        }
        HostBuffer memory;
        try {
            memory = pool.take(DType.U8, size); // frees the pool's reusable buffers and tries again before it throws
        } catch (DeviceOutOfMemoryException e) {
            throw new OutOfMemoryException("no pinned host memory of " + context + " left for " + size + " bytes", e);
        }
        return new PinnedAllocationManager(accountingAllocator, memory, pool);
    }

    /**
     * How many times the factory's pool pinned new memory (each allocation it could not serve; with a shared pool, its
     * other users' too): the figure to watch for a steady stream of batches, which should stop growing once the pool
     * holds a round's worth of buffers.
     */
    public long allocations() {
        return pool.allocations();
    }

    /** How many allocations a pooled buffer served, pinning nothing (with a shared pool, its other users' too). */
    public long reuses() {
        return pool.reuses();
    }

    /** Bytes of the released buffers the pool holds, reusable or waiting for their copies to finish. */
    public long pooledBytes() {
        return pool.heldBytes();
    }

    /** Bytes of the pooled buffers whose copies have finished, which the next allocations may take. */
    long reusableBytes() {
        return pool.reusableBytes();
    }

    /** The most bytes of released buffers the pool keeps. */
    public long poolLimit() {
        return pool.limit();
    }

    /**
     * Frees the pooled buffers (one still waiting for its copies once they have finished) and stops pooling: buffers
     * Arrow releases later are freed. The factory's allocators keep working. Idempotent, safe from any thread, never
     * blocks.
     */
    @Override
    public void close() {
        cleanable.clean();
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

    /**
     * Why {@code buffer}'s memory must not be touched: it is pinned memory whose context is closed, which freed it (its
     * allocator was not closed first); null for any other buffer. Checked before Sluice reads or writes a vector's
     * memory on the host: reading freed memory could crash the JVM.
     */
    static @Nullable String freedMemory(ArrowBuf buffer) {
        HostBuffer pinned = pinnedBytes(buffer);
        if (pinned == null || !pinned.isClosed() && !pinned.context().isClosed()) {
            return null;
        }
        return "is pinned memory of " + pinned.context() + ", which is closed and has freed it: close the allocators of a"
                + " PinnedAllocationFactory before its context";
    }

    @Override
    public String toString() {
        return "PinnedAllocationFactory[" + context + ", pool " + pool.heldBytes() + " of " + pool.limit() + " bytes]";
    }
}
