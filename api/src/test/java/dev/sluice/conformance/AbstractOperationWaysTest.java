package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import dev.sluice.OperationKind;
import dev.sluice.RepeatedWork;
import dev.sluice.UnsupportedOnBackendException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every kind of device operation enqueued four ways — at once, held on the host behind a pending stage, recorded by
 * repeated work, captured into a graph — leaves the same bytes on the device and in host memory, and listeners hear it
 * as the same kind with the same bytes (a captured operation is heard as the launch of its graph, as the listener's
 * contract says). The one value an operation is described by carries it all four ways.
 */
public abstract class AbstractOperationWaysTest extends ConformanceBase {

    private static final int N = 64;
    /** The 2-D copies: {@code HEIGHT} rows of {@code WIDTH} of every {@code PITCH} elements. */
    private static final int PITCH = 8;
    private static final int WIDTH = 5;
    private static final int HEIGHT = N / PITCH;

    /** How an operation reaches the device. */
    enum Way {
        PLAIN, HELD, RECORDED, CAPTURED
    }

    /** Buffers of one run, fresh for each: inputs counting up, outputs zero. */
    private final class Fixture {
        final DeviceStream stream = ctx.createStream();
        final HostBuffer pinnedIn = closeLater(ctx.allocateHost(DType.I32, N));
        final HostBuffer pinnedOut = closeLater(ctx.allocateHost(DType.I32, N));
        final int[] heapIn = iota(N, 1000);
        final int[] heapOut = new int[N];
        final DeviceBuffer a = closeLater(intBuffer(ctx, iota(N, 100)));
        final DeviceBuffer b = closeLater(intBuffer(ctx, filled(N, 0)));

        Fixture() {
            for (int k = 0; k < N; k++) {
                pinnedIn.setInt(k, 500 + k);
                pinnedOut.setInt(k, 0);
            }
        }

        /** What the run left: both device buffers, then both host outputs. */
        int[] state() {
            int[] out = new int[4 * N];
            System.arraycopy(readInts(stream, a), 0, out, 0, N);
            System.arraycopy(readInts(stream, b), 0, out, N, N);
            for (int k = 0; k < N; k++) {
                out[2 * N + k] = pinnedOut.getInt(k);
            }
            System.arraycopy(heapOut, 0, out, 3 * N, N);
            return out;
        }
    }

    /** One operation: its kind and bytes as listeners hear them, whether a graph may capture it, and the enqueue. */
    private record Operation(String name, OperationKind kind, long bytes, boolean capturable, Enqueue enqueue) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    private interface Enqueue {
        void on(DeviceStream s, Fixture f);
    }

    private List<Operation> operations() {
        DeviceFunction mulAdd = fn(TestKernels.MUL_ADD);
        long all = 4L * N;
        long rect = 4L * WIDTH * HEIGHT;
        return List.of(
                new Operation("upload of pinned memory", OperationKind.UPLOAD, all, true, (s, f) -> s.enqueueCopy(f.pinnedIn, f.b)),
                new Operation("upload of a Java array", OperationKind.UPLOAD, all, false,
                        (s, f) -> s.enqueueCopy(HostData.of(f.heapIn), f.b)),
                new Operation("download to pinned memory", OperationKind.DOWNLOAD, all, true, (s, f) -> s.enqueueCopy(f.a, f.pinnedOut)),
                new Operation("download to a Java array", OperationKind.DOWNLOAD, all, false,
                        (s, f) -> s.enqueueCopy(f.a, HostData.of(f.heapOut))),
                new Operation("device to device copy", OperationKind.DEVICE_TO_DEVICE, all, true, (s, f) -> s.enqueueCopy(f.a, f.b)),
                new Operation("fill", OperationKind.MEMSET, 0, true, (s, f) -> s.enqueueFill(f.b, 7)),
                new Operation("launch", OperationKind.KERNEL, 0, true,
                        (s, f) -> s.enqueueLaunch(mulAdd, LaunchConfig.forElements(N), f.a, (long) N, 3, 1)),
                new Operation("2-D upload of pinned memory", OperationKind.UPLOAD, rect, true,
                        (s, f) -> s.enqueueCopy2D(f.pinnedIn, PITCH, f.b, PITCH, WIDTH, HEIGHT)),
                new Operation("2-D download to pinned memory", OperationKind.DOWNLOAD, rect, true,
                        (s, f) -> s.enqueueCopy2D(f.a, PITCH, f.pinnedOut, PITCH, WIDTH, HEIGHT)),
                new Operation("2-D device to device copy", OperationKind.DEVICE_TO_DEVICE, rect, true,
                        (s, f) -> s.enqueueCopy2D(f.a, PITCH, f.b, PITCH, WIDTH, HEIGHT)));
    }

    @TestFactory
    Stream<DynamicTest> everyOperationLeavesTheSameBytesAndIsHeardTheSameEveryWay() {
        return operations().stream().map(op -> DynamicTest.dynamicTest(op.name(), () -> {
            int[] plain = null;
            for (Way way : Way.values()) {
                if (way == Way.CAPTURED && !op.capturable()) {
                    continue; // the drivers capture no copy of pageable memory: that operation is enqueued, not captured
                }
                int[] got = run(op, way);
                if (plain == null) {
                    plain = got;
                } else {
                    assertArrayEquals(plain, got, op + " " + way + " leaves other bytes than the plain enqueue");
                }
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> aPeerCopyLeavesTheSameBytesAndIsHeardTheSameEveryWay() {
        return Stream.of(Way.PLAIN, Way.HELD, Way.RECORDED).map(way -> DynamicTest.dynamicTest(way.toString(), () -> {
            int devices = DeviceContext.deviceCount(target().backendName());
            Assumptions.assumeTrue(devices >= 2, "a peer copy needs two devices; this machine has " + devices);
            DeviceContext other = open(1, ContextOptions.defaults());
            DeviceBuffer there = closeLater(intBuffer(other, filled(N, 0)));
            Fixture f = new Fixture();
            List<String> heard = listen(f.stream);
            enqueue(way, f.stream, s -> s.enqueueCopy(f.a, there));
            f.stream.synchronize();
            List<String> all = List.copyOf(heard);
            assertArrayEquals(iota(N, 100), readInts(other.stream(), there), "the peer copy's bytes, " + way);
            assertTrue(all.contains("peer " + 4L * N) || all.contains("peer-staged " + 4L * N),
                    "heard as a peer copy of its bytes, " + way + ": " + all);
        }));
    }

    /** Runs {@code op} {@code way} on a fresh fixture; returns what it left, having checked what listeners heard. */
    private int[] run(Operation op, Way way) {
        Fixture f = new Fixture();
        List<String> heard = listen(f.stream);
        enqueue(way, f.stream, s -> op.enqueue().on(s, f));
        f.stream.synchronize();
        List<String> all = List.copyOf(heard); // before the reads of what it left, which are heard too
        int[] state = f.state();
        List<String> own = all.stream().filter(h -> !h.startsWith("wait ") && !h.startsWith("marker ")
                && !h.startsWith("replay ") && !h.startsWith("graph ")).toList();
        if (way == Way.CAPTURED) {
            assertEquals(List.of(), own, op + " captured: its operations are heard as the graph's launch");
            assertTrue(all.contains("graph 0"), op + " captured: the graph's launch is heard: " + all);
        } else {
            assertEquals(List.of(op.kind().category() + " " + op.bytes()), own, op + " " + way + ": what listeners heard");
        }
        return state;
    }

    /** What listeners hear of {@code s}'s operations, as "category bytes". */
    private List<String> listen(DeviceStream s) {
        List<String> heard = Collections.synchronizedList(new ArrayList<>());
        closeLater(ctx.addListener(new DeviceListener() {
            @Override
            public void operationEnqueued(DeviceStream stream, OperationKind kind, long bytes) {
                if (stream == s) {
                    assertEquals(kind.isCopy() ? bytes : 0, bytes, "only copies have bytes");
                    heard.add(kind.category() + " " + bytes);
                }
            }
        }));
        return heard;
    }

    private void enqueue(Way way, DeviceStream s, Consumer<DeviceStream> body) {
        switch (way) {
            case PLAIN -> body.accept(s);
            case HELD -> {
                CompletableFuture<Void> stage = new CompletableFuture<>();
                s.waitFor(stage);
                body.accept(s);
                stage.complete(null);
            }
            case RECORDED -> {
                try (RepeatedWork w = s.repeatedWork()) {
                    await(w.enqueue(body));
                }
            }
            case CAPTURED -> {
                DeviceGraph g;
                try {
                    g = closeLater(s.capture(body));
                } catch (UnsupportedOnBackendException e) {
                    if (target().api() == Api.CPU) {
                        fail("the CPU backend must support stream capture", e);
                    }
                    Assumptions.abort("stream capture is not supported on " + s.context().backendName() + ": "
                            + e.getMessage());
                    throw e;
                }
                await(g.enqueueLaunch(s));
            }
        }
    }
}
