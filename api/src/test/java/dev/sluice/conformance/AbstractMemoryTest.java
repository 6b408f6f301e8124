package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Allocation, synchronous and stream-ordered; frees in stream order; and the promise that memory is freed only
 * after every operation already enqueued on it has finished, whichever stream it was enqueued on.
 */
public abstract class AbstractMemoryTest extends ConformanceBase {

    @Test
    void buffersDescribeThemselves() {
        DeviceBuffer b = ctx.allocate(DType.F64, 10);
        assertEquals(DType.F64, b.dtype());
        assertEquals(10, b.count());
        assertEquals(80, b.byteSize());
        assertEquals(0, b.byteOffset());
        assertSame(ctx, b.context());
        assertTrue(b.ready().isDone(), "a synchronous allocation is ready at once");
        assertSame(b, await(b.ready()));
        if (target().api() == Api.CPU) {
            assertEquals(0, b.address(), "device memory has no host-visible address on the CPU backend");
        } else {
            assertNotEquals(0, b.address(), "GPU buffers have a device address");
            assertEquals(b.address() + 16, b.slice(2, 3).address());
        }
        assertFalse(b.isClosed());
    }

    @Test
    void streamOrderedAllocationIsUsableAtOnceOnItsStream() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = s.enqueueAllocate(DType.I32, 64);
        s.enqueueFill(b, 4);
        assertArrayEquals(filled(64, 4), readInts(s, b));
        assertSame(b, await(b.ready()), "ready() completes with the buffer itself");
    }

    @Test
    void otherStreamsUseAStreamOrderedAllocationAfterReady() {
        DeviceStream s = ctx.createStream();
        DeviceStream other = ctx.createStream();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceBuffer b = s.enqueueAllocate(DType.I32, 16);
        assertFalse(b.ready().isDone(), "the allocation is behind the gate");
        other.waitFor(b.ready());
        DeviceFuture<Void> fill = other.enqueueFill(b, 2);
        assertStaysPending(fill, 100, "work waiting for ready() ran before the allocation");
        gate.complete(null);
        await(fill);
        assertArrayEquals(filled(16, 2), readInts(other, b));
    }

    @Test
    void enqueueFreeCompletesAndClosesTheBuffer() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer b = s.enqueueAllocate(DType.I32, 64);
        s.enqueueFill(b, 1);
        DeviceFuture<Void> free = s.enqueueFree(b);
        assertTrue(b.isClosed());
        await(free);
        assertThrows(ClosedResourceException.class, () -> s.enqueueFill(b, 2));
        assertThrows(ClosedResourceException.class, () -> s.enqueueFree(b), "freeing twice");
        assertStreamUsable(s);
    }

    @Test
    void manyStreamOrderedAllocationsAndFrees() {
        DeviceStream s = ctx.createStream();
        for (int i = 0; i < 200; i++) {
            DeviceBuffer b = s.enqueueAllocate(DType.U8, 1 << 16);
            s.enqueueMemset(b, i & 0xFF);
            s.enqueueFree(b);
        }
        s.synchronize();
        assertStreamUsable(s);
    }

    @Test
    void closingABufferRightAfterEnqueueingAKernelKeepsItsMemoryForTheKernel() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer src = intBuffer(ctx, iota(4096, 1));
        DeviceBuffer dst = intBuffer(ctx, filled(4096, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> launch = s.enqueueLaunch(fn(TestKernels.COPY_I32), LaunchConfig.forElements(4096), src, dst, 4096L);
        src.close();
        assertTrue(src.isClosed());
        // Invite the allocator to reuse the memory if it was (wrongly) freed already. Not on the default stream:
        // the free is ordered there, behind the kernel, which waits at the gate.
        DeviceStream third = ctx.createStream();
        List<DeviceBuffer> others = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            DeviceBuffer o = ctx.allocate(DType.I32, 4096);
            third.enqueueFill(o, -7);
            others.add(o);
        }
        third.synchronize();
        gate.complete(null);
        await(launch);
        assertArrayEquals(iota(4096, 1), readInts(s, dst), "the kernel read valid memory of the closed buffer");
        others.forEach(DeviceBuffer::close);
    }

    @Test
    void closingABufferInUseOnAnotherStreamWaitsForThatUse() {
        DeviceStream user = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 1024); // freed on the default stream when closed
        DeviceBuffer out = intBuffer(ctx, filled(1024, 0));
        DeviceFuture<Void> slow = slowFill(user, b, 5, Duration.ofMillis(300));
        DeviceFuture<Void> copy = user.enqueueLaunch(fn(TestKernels.COPY_I32), LaunchConfig.forElements(1024), b, out, 1024L);
        b.close();
        await(slow);
        await(copy);
        assertArrayEquals(filled(1024, 5), readInts(user, out));
    }

    @Test
    void closingAHostBufferRightAfterACopyKeepsItForTheCopy() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = ctx.allocateHost(DType.I32, 256);
        for (int i = 0; i < 256; i++) {
            h.setInt(i, 3 * i);
        }
        DeviceBuffer d = intBuffer(ctx, filled(256, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> upload = s.enqueueCopy(h, d);
        h.close();
        assertTrue(h.isClosed());
        assertThrows(ClosedResourceException.class, h::segment, "a closed host buffer is not accessible");
        gate.complete(null);
        await(upload);
        int[] expected = new int[256];
        for (int i = 0; i < 256; i++) {
            expected[i] = 3 * i;
        }
        assertArrayEquals(expected, readInts(s, d));
    }

    @Test
    void whenReleasedCompletesOnlyOnceTheCopiesOfAClosedHostBufferHaveFinished() {
        DeviceStream s = ctx.createStream();
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        HostBuffer registered = ctx.registerHost(arena.allocate(256 * 4, 64), DType.I32);
        for (int i = 0; i < 256; i++) {
            registered.setInt(i, 5 * i);
        }
        DeviceBuffer d = intBuffer(ctx, filled(256, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> upload = s.enqueueCopy(registered.slice(0, 128), d.slice(0, 128));
        registered.close();
        CompletableFuture<Void> released = registered.whenReleased().toCompletableFuture();
        assertStaysPending(released, 100, "registered memory was released while a copy of it was held");
        gate.complete(null);
        await(upload);
        await(released);
        arena.close(); // the owner frees its memory only now
        int[] expected = filled(256, 0);
        for (int i = 0; i < 128; i++) {
            expected[i] = 5 * i;
        }
        assertArrayEquals(expected, readInts(s, d));
    }

    @Test
    void whenReleasedCompletesWithTheContextsCloseForABufferLeftOpen() {
        dev.sluice.DeviceContext other = open(dev.sluice.ContextOptions.defaults());
        HostBuffer h = other.allocateHost(DType.F32, 16);
        CompletableFuture<Void> released = h.whenReleased().toCompletableFuture();
        assertFalse(released.isDone());
        other.close();
        assertTrue(released.isDone(), "the context's close frees its host memory");
    }

    @Test
    void whenIdleCompletesOnlyOnceACopyInFlightHasFinished() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = ctx.allocateHost(DType.I32, 256);
        for (int i = 0; i < 256; i++) {
            h.setInt(i, 7 * i);
        }
        DeviceBuffer d = intBuffer(ctx, filled(256, 0));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> upload = s.enqueueCopy(h.slice(64, 128), d.slice(0, 128)); // through a slice: same memory
        CompletableFuture<Void> idle = h.whenIdle().toCompletableFuture();
        assertStaysPending(idle, 100, "the memory was idle while a copy of it was held");
        gate.complete(null);
        await(upload);
        await(idle);
        assertFalse(h.isClosed(), "whenIdle() closes nothing");
        int[] expected = filled(256, 0);
        for (int i = 0; i < 128; i++) {
            expected[i] = 7 * (64 + i);
        }
        assertArrayEquals(expected, readInts(s, d));
    }

    @Test
    void whenIdleCompletesAtOnceWhenNoCopyIsPending() {
        HostBuffer h = ctx.allocateHost(DType.I32, 64);
        assertTrue(h.whenIdle().toCompletableFuture().isDone(), "a buffer never copied is idle");
        DeviceBuffer d = ctx.allocate(DType.I32, 64);
        await(ctx.stream().enqueueCopy(h, d));
        assertTrue(h.slice(0, 8).whenIdle().toCompletableFuture().isDone(), "its only copy has finished");
    }

    @Test
    void whenIdleDoesNotWaitForCopiesEnqueuedAfterIt() {
        DeviceStream s = ctx.createStream();
        HostBuffer h = ctx.allocateHost(DType.I32, 64);
        DeviceBuffer d = ctx.allocate(DType.I32, 64);
        await(s.enqueueCopy(h, d));
        CompletableFuture<Void> idle = h.whenIdle().toCompletableFuture();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        s.waitFor(gate);
        DeviceFuture<Void> later = s.enqueueCopy(d, h);
        assertTrue(idle.isDone(), "a copy enqueued after whenIdle() is not waited for");
        CompletableFuture<Void> idleAgain = h.whenIdle().toCompletableFuture();
        assertStaysPending(idleAgain, 100, "whenIdle() after the copy did not wait for it");
        gate.complete(null);
        await(later);
        await(idleAgain);
    }

    @Test
    void whenIdleCompletesWhenTheContextsCloseEndsAPendingCopy() {
        dev.sluice.DeviceContext other = open(dev.sluice.ContextOptions.defaults());
        HostBuffer h = other.allocateHost(DType.I32, 64);
        DeviceBuffer d = other.allocate(DType.I32, 64);
        DeviceStream s = other.createStream();
        s.waitFor(new CompletableFuture<>()); // never completed: the close ends the wait
        s.enqueueCopy(h, d);
        CompletableFuture<Void> idle = h.whenIdle().toCompletableFuture();
        assertFalse(idle.isDone());
        other.close();
        assertTrue(idle.isDone(), "the context's close ran or dropped the copy");
    }

    @Test
    void asTypeViewsTheSameBytesAsAnotherElementType() {
        HostBuffer bytes = ctx.allocateHost(DType.U8, 64);
        HostBuffer floats = bytes.asType(DType.F32);
        assertEquals(16, floats.count());
        assertEquals(DType.F32, floats.dtype());
        floats.setFloat(3, 2.5f);
        assertEquals(Float.floatToRawIntBits(2.5f), bytes.asType(DType.I32).getInt(3));
        DeviceBuffer d = ctx.allocate(DType.F32, 4);
        await(ctx.stream().enqueueCopy(bytes.slice(8, 16).asType(DType.F32), d));
        float[] back = new float[4];
        ctx.stream().sync().copy(d, dev.sluice.HostData.of(back));
        assertArrayEquals(new float[] {0f, 2.5f, 0f, 0f}, back);
        floats.close();
        assertFalse(bytes.isClosed(), "a view owns nothing");
        dev.sluice.InvalidArgumentException e = assertThrows(dev.sluice.InvalidArgumentException.class,
                () -> bytes.slice(0, 6).asType(DType.F32));
        assertEquals("type", e.argument());
        bytes.close();
        assertThrows(ClosedResourceException.class, () -> floats.asType(DType.I32));
    }

    @Test
    void slicesOwnNothing() {
        DeviceBuffer b = intBuffer(ctx, iota(8, 0));
        DeviceBuffer slice = b.slice(2, 2);
        slice.close();
        assertFalse(slice.isClosed(), "closing a slice does nothing");
        assertFalse(b.isClosed());
        assertArrayEquals(new int[] {2, 3}, readInts(ctx.stream(), slice));
        b.close();
        assertTrue(slice.isClosed(), "a slice is closed with its buffer");
        b.close(); // idempotent
    }

    @Test
    void allocationThatCannotFitThrowsOutOfMemoryAndChangesNothing() {
        long total = ctx.memoryInfo().total();
        long huge = Math.max(total, 1L << 40) * 4;
        DeviceOutOfMemoryException e = assertThrows(DeviceOutOfMemoryException.class, () -> ctx.allocate(DType.U8, huge));
        assertEquals(huge, e.requestedBytes());
        assertStreamUsable(ctx.stream());
        DeviceStream s = ctx.createStream();
        try {
            DeviceBuffer b = s.enqueueAllocate(DType.U8, huge);
            assertInstanceOf(DeviceOutOfMemoryException.class, awaitFailure(b.ready()),
                    "a stream-ordered allocation reports out of memory at the call or through ready()");
        } catch (DeviceOutOfMemoryException expected) {
            // reported at the call
        }
        assertStreamUsable(s);
    }

    @Test
    void hostAllocationsAreZeroFilled() {
        HostBuffer h = ctx.allocateHost(DType.I64, 1000);
        for (int i = 0; i < 1000; i++) {
            assertEquals(0, h.getLong(i));
        }
        assertEquals(8000, h.byteSize());
        assertFalse(h.isRegistered());
    }
}
