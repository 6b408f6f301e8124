package dev.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.EngineAccess;
import dev.sluice.FakeDevices;
import dev.sluice.HostData;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The last-use bookkeeping that makes frees wait for every use: it goes by the streams' completed sequences, not by the
 * futures' state, and a buffer used by many short-lived streams remembers only those whose use is still pending.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UseTrackerTest {

    /** Whether markers recorded from now on report done. */
    private final AtomicBoolean deviceDone = new AtomicBoolean(true);

    private StreamHandle stream() {
        return (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {StreamHandle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "recordMarker" -> {
                        boolean doneAtRecord = deviceDone.get();
                        yield FakeDevices.marker(() -> doneAtRecord || deviceDone.get());
                    }
                    case "allocate" -> FakeDevices.memory((Long) args[0]);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "fake stream";
                    default -> null;
                });
    }

    @Test
    void aBufferUsedByManyShortLivedStreamsRemembersOnlyPendingUses() {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer weights = ctx.allocate(DType.I32, 16);
        for (int i = 0; i < 1_000; i++) {
            try (DeviceStream s = ctx.createStream()) {
                s.enqueueFill(weights, i);
            }
        }
        assertTrue(EngineAccess.allocation(weights).uses.remembered() <= 2,
                "1000 closed streams, each done with the buffer: " + EngineAccess.allocation(weights).uses.remembered() + " remembered");
        weights.close();
    }

    @Test
    void aCancelledUseIsStillPendingUntilTheDeviceHasFinishedIt() throws Exception {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceStream s = ctx.createStream();
        deviceDone.set(false);
        DeviceFuture<Void> use = s.enqueueFill(b, 1);
        use.cancel(false);
        assertEquals(1, EngineAccess.allocation(b).uses.pendingUses(null).size(), "cancelling does not finish the device's work");
        AtomicBoolean released = new AtomicBoolean();
        EngineAccess.allocation(b).uses.whenAllFinished(() -> released.set(true));
        Thread.sleep(50);
        assertTrue(!released.get(), "nothing may be released while the device still runs the use");
        deviceDone.set(true);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!released.get() && System.nanoTime() < until) {
            Thread.sleep(1);
        }
        assertTrue(released.get(), "released once the device finished");
        assertEquals(0, EngineAccess.allocation(b).uses.pendingUses(null).size());
        b.close();
    }

    @Test
    void oneStreamUsingABufferOverAndOverKeepsOneAccessPerRangeAndKind() {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceStream s = ctx.createStream();
        deviceDone.set(false); // nothing finishes, so nothing is dropped as finished: only replacement bounds the accesses
        for (int i = 0; i < 1_000; i++) {
            s.enqueueFill(b, i);
        }
        assertEquals(1, EngineAccess.allocation(b).uses.rememberedAccesses(), "each write of the whole buffer replaces the last");
        for (int i = 0; i < 100; i++) {
            s.enqueueCopy(b, HostData.of(new int[16]));
            s.enqueueCopy(b.slice(0, 8), HostData.of(new int[8]));
        }
        assertEquals(3, EngineAccess.allocation(b).uses.rememberedAccesses(), "the write, and one read per range");
        s.enqueueFill(b, 0);
        assertEquals(1, EngineAccess.allocation(b).uses.rememberedAccesses(), "a write of the whole buffer stands for the reads inside it");
        assertEquals(0, s.automaticWaits());
        deviceDone.set(true);
        b.close();
    }

    @Test
    void accessesOfFinishedWorkAreDroppedWhenTheArraysAreFull() {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer b = ctx.allocate(DType.I32, 1024);
        for (int i = 0; i < 1_000; i++) {
            try (DeviceStream s = ctx.createStream()) {
                s.enqueueFill(b.slice(i, 1), i);
            }
        }
        assertTrue(EngineAccess.allocation(b).uses.rememberedAccesses() <= 2,
                "1000 finished writes of distinct slices: " + EngineAccess.allocation(b).uses.rememberedAccesses() + " remembered");
        b.close();
    }

    @Test
    void manySlicesPendingOnSeveralStreamsWaitExactlyWhereTheyConflict() {
        // Thousands of accesses of one buffer pending at once, of random slices on three streams: each operation must
        // wait for exactly the other streams that have an earlier conflicting access overlapping its slice (the device
        // finishes nothing, so nothing is forgotten), however the accesses are kept and searched.
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        int elements = 4096;
        DeviceBuffer b = ctx.allocate(DType.I32, elements);
        DeviceStream[] streams = {ctx.createStream(), ctx.createStream(), ctx.createStream()};
        deviceDone.set(false);
        java.util.Random random = new java.util.Random(7);
        java.util.List<int[]> done = new java.util.ArrayList<>(); // {stream, from, to, writes}
        for (int op = 0; op < 3_000; op++) {
            int k = random.nextInt(streams.length);
            int length = random.nextInt(10) == 0 ? 1 + random.nextInt(elements / 4) : 1 + random.nextInt(16);
            int from = op < 1_000 ? op * 4 % (elements - length) : random.nextInt(elements - length); // in order, then anywhere
            int to = from + length;
            boolean writes = random.nextBoolean();
            java.util.Set<Integer> expected = new java.util.HashSet<>();
            for (int[] d : done) {
                if (d[0] != k && (writes || d[3] == 1) && from < d[2] && d[1] < to) {
                    expected.add(d[0]);
                }
            }
            long before = streams[k].automaticWaits();
            if (writes) {
                streams[k].enqueueFill(b.slice(from, length), op);
            } else {
                streams[k].enqueueCopy(b.slice(from, length), HostData.of(new int[length]));
            }
            assertEquals(expected.size(), streams[k].automaticWaits() - before, "operation " + op + ": waits");
            done.add(new int[] {k, from, to, writes ? 1 : 0});
        }
        deviceDone.set(true);
        b.close();
    }

    @Test
    void aWriteOnAnotherStreamWaitsOnceForTheLatestPendingUseOfEachStream() {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceStream a = ctx.createStream();
        DeviceStream c = ctx.createStream();
        DeviceStream w = ctx.createStream();
        deviceDone.set(false);
        a.enqueueFill(b, 1);
        a.enqueueCopy(b, HostData.of(new int[16]));
        c.enqueueCopy(b.slice(0, 4), HostData.of(new int[4]));
        assertEquals(1, c.automaticWaits(), "the read on c waits for a's fill");
        w.enqueueFill(b.slice(8, 8), 2);
        assertEquals(1, w.automaticWaits(), "one wait for a (its latest use), none for c's read of other bytes");
        w.enqueueFill(b, 3);
        assertEquals(3, w.automaticWaits(), "then a wait for a and one for c");
        deviceDone.set(true);
        b.close();
    }

    @Test
    void orderingAfterAnUnsealedGroupWhoseStreamIsLockedLetsItsOwnLockGoInsteadOfDeadlocking() throws Exception {
        DeviceContext ctx = FakeDevices.open(Api.CPU, n -> stream());
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        DeviceStream a = ctx.createStream();
        DeviceStream reader = ctx.createStream();
        deviceDone.set(false);
        a.enqueueFill(b, 1); // a marker of its own: the stream was idle
        DeviceFuture<Void> grouped = a.enqueueFill(b, 2); // joins the open group: no marker until sealed
        assertTrue(((Operation<?>) grouped).marker() == null, "the second fill's group is still open");
        // Another thread holds a's lock and then wants the reader's: if the reader's enqueue kept its own lock while
        // waiting for a's to seal the group, the two would wait for each other for ever.
        java.util.concurrent.CountDownLatch aLocked = new java.util.concurrent.CountDownLatch(1);
        Thread other = Thread.ofPlatform().daemon().start(() -> {
            EngineAccess.engine(a).core.lock();
            try {
                aLocked.countDown();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                EngineAccess.engine(reader).core.lock();
                EngineAccess.engine(reader).core.unlock();
            } finally {
                EngineAccess.engine(a).core.unlock();
            }
        });
        aLocked.await();
        // On a thread of its own, so that a deadlock fails the test instead of hanging it (lock() ignores interrupts)
        Thread enqueue = Thread.ofPlatform().daemon().start(() -> reader.enqueueCopy(b, HostData.of(new int[16])));
        enqueue.join(10_000);
        other.join(10_000);
        assertTrue(!enqueue.isAlive() && !other.isAlive(), "the enqueue and the thread holding a's lock deadlocked");
        assertEquals(1, reader.automaticWaits(), "one wait, on a's sealed group");
        assertTrue(((Operation<?>) grouped).marker() != null, "the group was sealed for the wait");
        deviceDone.set(true);
        b.close();
    }
}
