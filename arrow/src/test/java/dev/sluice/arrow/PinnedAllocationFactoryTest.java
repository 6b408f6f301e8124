package dev.sluice.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.RepeatedWork;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The pool of released pinned buffers: reuse, the wait for copies in flight, the limit, and the factory's close. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PinnedAllocationFactoryTest {

    private DeviceContext ctx;

    @BeforeEach
    void open() {
        ctx = DeviceContext.open(Api.CPU, 0);
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    private static HostBuffer pinned(ArrowBuf buffer) {
        return Objects.requireNonNull(PinnedAllocationFactory.pinnedBytes(buffer));
    }

    @Test
    void aReleasedBufferServesTheNextAllocationOfItsSizeClass() {
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
                RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE)) {
            ArrowBuf first = allocator.buffer(10_000);
            long address = first.memoryAddress();
            assertEquals(16_384, allocator.getAllocatedMemory(), "Arrow's accounting: its own rounding, nothing more");
            first.close();
            assertEquals(0, allocator.getAllocatedMemory(), "pooled memory is not Arrow's");
            assertEquals(16_384, factory.pooledBytes());
            try (ArrowBuf second = allocator.buffer(9_000)) { // Arrow rounds it to the same 16 KiB
                assertEquals(address, second.memoryAddress(), "the released buffer was handed out again");
                assertEquals(16_384, allocator.getAllocatedMemory());
                assertEquals(0, factory.pooledBytes());
            }
            assertEquals(1, factory.allocations(), "pinned once");
            assertEquals(1, factory.reuses());
            try (ArrowBuf other = allocator.buffer(40_000)) { // another size class: newly pinned
                assertNotEquals(address, other.memoryAddress());
                assertEquals(2, factory.allocations());
            }
        }
    }

    @Test
    void noBufferIsReusedWhileACopyOfItIsInFlight() throws Exception {
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
                RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE);
                DeviceStream s = ctx.createStream();
                DeviceBuffer device = ctx.allocate(DType.U8, 4096)) {
            CompletableFuture<Void> gate = new CompletableFuture<>();
            s.waitFor(gate);
            try {
                ArrowBuf first = allocator.buffer(4096);
                long address = first.memoryAddress();
                DeviceFuture<Void> upload = s.enqueueCopy(pinned(first), device);
                first.close(); // Arrow lets it go while its upload waits behind the gate
                try (ArrowBuf meanwhile = allocator.buffer(4096)) {
                    assertNotEquals(address, meanwhile.memoryAddress(), "handed out while a copy of it was in flight");
                    assertEquals(4096, factory.pooledBytes(), "kept, waiting for its copy");
                    assertEquals(0, factory.reusableBytes());
                }
                gate.complete(null);
                upload.get(10, TimeUnit.SECONDS);
                awaitReusable(factory, 2 * 4096);
                try (ArrowBuf later1 = allocator.buffer(4096); ArrowBuf later2 = allocator.buffer(4096)) {
                    assertTrue(later1.memoryAddress() == address || later2.memoryAddress() == address,
                            "reusable once its copy finished");
                    assertEquals(2, factory.allocations());
                }
            } finally {
                gate.complete(null); // a failed assertion must not leave the stream's close waiting for it
            }
        }
    }

    @Test
    void thePoolKeepsNoMoreThanItsLimitFreeingTheOldestFirst() throws Exception {
        long limit = 4 * 16_384;
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx, limit);
                RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE)) {
            assertEquals(limit, factory.poolLimit());
            List<HostBuffer> memory = new ArrayList<>();
            List<ArrowBuf> buffers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                ArrowBuf b = allocator.buffer(16_384);
                buffers.add(b);
                memory.add(pinned(b));
            }
            buffers.forEach(ArrowBuf::close);
            assertEquals(limit, factory.pooledBytes());
            memory.get(0).whenReleased().toCompletableFuture().get(10, TimeUnit.SECONDS); // the oldest made room
            for (HostBuffer h : memory.subList(1, 5)) {
                assertFalse(h.whenReleased().toCompletableFuture().isDone(), "pooled memory was freed: " + h);
            }
            buffers.clear();
            for (int i = 0; i < 5; i++) {
                buffers.add(allocator.buffer(16_384));
            }
            assertEquals(4, factory.reuses());
            assertEquals(6, factory.allocations(), "five, then the one the limit had freed");
            buffers.forEach(ArrowBuf::close);

            ArrowBuf large = allocator.buffer(2 * limit); // larger than the whole pool: freed at its release
            HostBuffer largeMemory = pinned(large);
            large.close();
            largeMemory.whenReleased().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertTrue(factory.pooledBytes() <= limit, factory::toString);
        }
    }

    @Test
    void withoutAPoolEachBufferIsTheSizeArrowAskedForAndFreedAtItsRelease() throws Exception {
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx, 0);
                RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE)) {
            ArrowBuf b = allocator.buffer(100);
            HostBuffer memory = pinned(b);
            assertEquals(128, memory.byteSize(), "Arrow's rounding only");
            b.close();
            memory.whenReleased().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(0, factory.pooledBytes());
        }
    }

    @Test
    void closingTheFactoryFreesThePooledMemoryAndStopsPooling() throws Exception {
        PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
        RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE);
        List<HostBuffer> memory = new ArrayList<>();
        for (int size : new int[] {100, 5_000, 70_000, 3_000_000}) {
            ArrowBuf b = allocator.buffer(size);
            memory.add(pinned(b));
            b.close();
        }
        assertTrue(factory.pooledBytes() > 0);
        allocator.close(); // Arrow's leak check: nothing of Arrow's is left
        factory.close();
        for (HostBuffer h : memory) {
            h.whenReleased().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        assertEquals(0, factory.pooledBytes());
        try (RootAllocator after = factory.newRootAllocator(Long.MAX_VALUE)) { // still allocates, pools nothing
            ArrowBuf b = after.buffer(4096);
            HostBuffer h = pinned(b);
            b.close();
            h.whenReleased().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(0, factory.pooledBytes());
        }
        factory.close(); // idempotent
    }

    @Test
    void aVectorOnReusedMemoryStartsZeroedAsArrowZeroesItsOwnBuffers() throws Exception {
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
                RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE)) {
            try (Float4Vector dirty = new Float4Vector("dirty", allocator)) {
                dirty.allocateNew(1000);
                for (int i = 0; i < 1000; i++) {
                    dirty.set(i, 42f);
                }
            }
            awaitReusable(factory, 1);
            try (Float4Vector fresh = new Float4Vector("fresh", allocator)) {
                fresh.allocateNew(1000);
                assertEquals(1, factory.allocations(), "the vector's memory was reused");
                fresh.setValueCount(1000);
                for (int i = 0; i < 1000; i++) {
                    assertTrue(fresh.isNull(i), "row " + i);
                    assertEquals(0, fresh.getDataBuffer().getFloat(4L * i), "row " + i);
                }
            }
        }
    }

    /** A pinned vector of {@code n} ints, each {@code value(i)}, from {@code allocator}. */
    private static IntVector vector(RootAllocator allocator, int n, java.util.function.IntUnaryOperator value) {
        IntVector v = new IntVector("v", allocator);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
            v.set(i, value.applyAsInt(i));
        }
        v.setValueCount(n);
        return v;
    }

    @Test
    void aVectorClosedInRepeatedWorkKeepsItsMemoryFromTheNextVectorUntilTheRecordedUploadRan() throws Exception {
        int n = 1024;
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
                RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE);
                DeviceStream s = ctx.createStream();
                RepeatedWork w = s.repeatedWork();
                DeviceBuffer device = ctx.allocate(DType.I32, n)) {
            List<IntVector> next = new ArrayList<>();
            w.enqueue(c -> {
                IntVector v = vector(allocator, n, i -> i + 1);
                c.enqueueCopy(ArrowColumns.hostData(v.getDataBuffer(), 4L * n, DType.I32), device);
                v.close(); // the upload is recorded, not yet run: the pool must not hand its memory out
                next.add(vector(allocator, n, i -> 999));
            }).get(10, TimeUnit.SECONDS);
            int[] got = new int[n];
            s.enqueueCopy(device, HostData.of(got)).get(10, TimeUnit.SECONDS);
            for (int i = 0; i < n; i++) {
                assertEquals(i + 1, got[i], "element " + i + ": the upload read the closed vector's data");
            }
            next.getFirst().close();
        }
    }

    @Test
    void aVectorClosedInRepeatedWorkKeepsItsMemoryFromTheNextVectorUntilTheRecordedDownloadRan() throws Exception {
        int n = 1024;
        try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
                RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE);
                DeviceStream s = ctx.createStream();
                RepeatedWork w = s.repeatedWork();
                DeviceBuffer device = ctx.allocate(DType.I32, n)) {
            int[] values = new int[n];
            java.util.Arrays.fill(values, 5);
            s.enqueueCopy(HostData.of(values), device).get(10, TimeUnit.SECONDS);
            List<IntVector> next = new ArrayList<>();
            w.enqueue(c -> {
                IntVector v = vector(allocator, n, i -> 0);
                c.enqueueCopy(device, ArrowColumns.hostData(v.getDataBuffer(), 4L * n, DType.I32));
                v.close(); // the download is recorded, not yet run: it must not land in the next vector
                next.add(vector(allocator, n, i -> 7));
            }).get(10, TimeUnit.SECONDS);
            s.synchronize();
            try (IntVector after = next.getFirst()) {
                for (int i = 0; i < n; i++) {
                    assertEquals(7, after.get(i), "element " + i + " of the next vector");
                }
            }
        }
    }

    @Test
    void factoriesSharingAPoolReuseEachOthersBuffersAndLeaveItOpen() {
        try (HostBufferPool shared = HostBufferPool.of(ctx, 1 << 20)) {
            long address;
            try (PinnedAllocationFactory first = PinnedAllocationFactory.of(shared);
                    RootAllocator allocator = first.newRootAllocator(Long.MAX_VALUE);
                    ArrowBuf b = allocator.buffer(10_000)) {
                address = b.memoryAddress();
            }
            assertFalse(shared.isClosed(), "a shared pool is its owner's to close");
            assertEquals(16_384, shared.reusableBytes());
            try (PinnedAllocationFactory second = PinnedAllocationFactory.of(shared);
                    RootAllocator allocator = second.newRootAllocator(Long.MAX_VALUE);
                    ArrowBuf b = allocator.buffer(16_000)) {
                assertEquals(address, b.memoryAddress(), "the first factory's released buffer");
                assertEquals(1, second.reuses());
            }
            HostBuffer user = shared.take(DType.F32, 4096); // and a user of the pool, the same 16 KiB class
            assertEquals(address, user.segment().address());
            shared.give(user);
        }
        var e = assertThrows(InvalidArgumentException.class, () -> PinnedAllocationFactory.of((HostBufferPool) null));
        assertEquals("pool", e.argument());
    }

    @Test
    void aNegativePoolLimitIsRefusedNamingIt() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> PinnedAllocationFactory.of(ctx, -1));
        assertEquals("poolLimit", e.argument());
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }

    /** The pool's callback runs on the completion thread after the copy's future: wait for it. */
    private static void awaitReusable(PinnedAllocationFactory factory, long bytes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (factory.reusableBytes() < bytes) {
            assertTrue(System.nanoTime() < deadline, "never reusable: " + factory);
            Thread.sleep(1);
        }
    }
}
