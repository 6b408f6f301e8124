package dev.sluice.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.BackendUnavailableException;
import dev.sluice.ClosedResourceException;
import dev.sluice.CompilationException;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.EventFlag;
import dev.sluice.HostBuffer;
import dev.sluice.HostBufferPool;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.RepeatedWork;
import dev.sluice.SluiceException;
import dev.sluice.StreamOptions;
import dev.sluice.SyncStream;
import dev.sluice.Trace;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.WaitStrategy;
import dev.sluice.kernel.DeviceReduction;
import dev.sluice.kernel.Kernels;
import dev.sluice.kernel.Reduction;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/guide.md's snippets, written out as a new user would from the page, and the promises of the prose around them:
 * if the API moves, these stop compiling or fail, and the page needs the same change. The surefire configuration of
 * this module gives the simulator two devices.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GuideSnippetsTest {

    static final Kernel AXPB = Kernels.elementwise("axpb")
            .input(KernelParam.scalar("a", DType.F32))
            .input(KernelParam.pointer("x", DType.F32))
            .input(KernelParam.scalar("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * x + b")
            .build();

    @Test
    void contextSnippet() {
        try (DeviceContext ctx = DeviceContext.open()) {
            assertNotNull(ctx.name() + " " + ctx.computeCapability() + " " + ctx.memoryInfo());
            assertEquals("cpu", ctx.backendName());
        }
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 1)) {
            assertEquals(1, ctx.id());
        }
        try (DeviceContext ctx = DeviceContext.open("cpu", 0)) {
            assertEquals(Api.CPU, ctx.api());
        }
        assertTrue(DeviceContext.deviceCount(Api.CPU) >= 1);
        assertTrue(DeviceContext.deviceCount("cpu") >= 1);
        assertTrue(DeviceContext.backendNames().contains("cpu"));
        assertFalse(DeviceContext.detect().isBlank());
    }

    @Test
    void openNamesKnownBackendsAndDeviceRange() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> DeviceContext.open("nope", 0));
        assertTrue(e.getMessage().contains("cpu"), e.getMessage());
        InvalidArgumentException id = assertThrows(InvalidArgumentException.class, () -> DeviceContext.open("cpu", 99));
        assertEquals("deviceId", id.argument());
    }

    @Test
    void streamTableMethods() throws Exception {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream s = ctx.createStream(StreamOptions.defaults())) {
            DeviceBuffer b = s.enqueueAllocate(DType.F32, 16);
            assertSame(b, b.ready().join());
            s.enqueueFill(b, 2.5f);
            s.enqueueMemset(b.reinterpret(DType.U8), (byte) 0);
            DeviceEvent ev = ctx.createEvent();
            s.enqueueRecord(ev);
            s.waitFor(ev);
            DeviceFuture<Void> marker = s.enqueueMarker();
            s.waitFor(marker);
            s.waitFor(ctx.stream());
            s.waitFor(CompletableFuture.completedFuture(null));
            s.enqueueHostFunction(() -> { });
            s.enqueueFree(b);
            s.synchronize();
            s.sync();
            assertTrue(marker.isDone());
        }
    }

    @Test
    void failedStageFailsTheWaitAndTheStreamGoesOn() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream s = ctx.createStream()) {
            CompletableFuture<Void> stage = new CompletableFuture<>();
            DeviceFuture<Void> w = s.waitFor(stage);
            DeviceFuture<Void> after = s.enqueueMarker();
            stage.completeExceptionally(new RuntimeException("nope"));
            assertThrows(CompletionException.class, w::join);
            after.join();
        }
    }

    @Test
    void hostFunctionThatThrowsFailsItsFutureOnly() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream s = ctx.createStream()) {
            DeviceFuture<Void> f = s.enqueueHostFunction(() -> {
                throw new IllegalStateException("boom");
            });
            DeviceFuture<Void> after = s.enqueueMarker();
            CompletionException e = assertThrows(CompletionException.class, f::join);
            assertInstanceOf(IllegalStateException.class, e.getCause());
            after.join();
        }
    }

    @Test
    void kernelNamedSnippetAndAutomaticWaits() {
        Kernel k = Kernel.named("axpy")
                .param(KernelParam.input("x", DType.F32))    // const float* x: read
                .param(KernelParam.output("y", DType.F32))   // float* y: written only
                .param(KernelParam.pointer("z", DType.F32))  // float* z: read and written (the default)
                .java(t -> { })
                .build();
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream a = ctx.createStream();
                DeviceStream b = ctx.createStream()) {
            DeviceFunction f = ctx.compile(k);
            DeviceBuffer x = ctx.allocate(DType.F32, 4), y = ctx.allocate(DType.F32, 4), z = ctx.allocate(DType.F32, 4);
            a.enqueueHostFunction(() -> sleep(50));
            a.enqueueFill(x, 1f);
            b.enqueueLaunch(f, LaunchConfig.of(1, 1), x, y, z);
            b.synchronize();
            assertTrue(b.automaticWaits() >= 1, "automaticWaits " + b.automaticWaits());
            ContextOptions.defaults().withAutoOrdering(false);
            x.unordered();
        }
    }

    @Test
    void eventSnippet() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream s = ctx.createStream()) {
            DeviceEvent never = ctx.createEvent();
            assertTrue(never.query(), "an event never recorded is complete");
            DeviceEvent start = ctx.createEvent(EventFlag.TIMING), end = ctx.createEvent(EventFlag.TIMING, EventFlag.BLOCKING_SYNC);
            s.enqueueRecord(start);
            s.enqueueRecord(end);
            end.synchronize();
            assertFalse(start.elapsed(end).isNegative());
            assertFalse(ctx.executionTime(3, (stream, i) -> stream.enqueueMarker()).isNegative());
        }
    }

    @Test
    void buffersSnippet() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            for (DType t : new DType[] {DType.BOOL, DType.I8, DType.I16, DType.I32, DType.I64, DType.U8, DType.U16,
                    DType.U32, DType.U64, DType.F16, DType.BF16, DType.F32, DType.F64}) {
                ctx.allocate(t, 1).close();
            }
            DeviceBuffer d = ctx.allocate(DType.F32, 8);
            assertEquals(0, d.address(), "address() is 0 on the CPU simulator");
            DeviceBuffer view = d.slice(2, 4);
            view.reinterpret(DType.I32);
            HostBuffer h = ctx.allocateHost(DType.F32, 8);
            for (int i = 0; i < 8; i++) {
                assertEquals(0f, h.getFloat(i), "allocateHost is zero-filled");
            }
            h.setFloat(1, 3f);
            try (Arena arena = Arena.ofShared()) {
                HostBuffer reg = ctx.registerHost(arena.allocate(64), DType.F32);
                reg.close();
            }
            try (HostBuffer mapped = d.mapToHost()) {
                mapped.setFloat(0, 42f);
            }
            float[] out = new float[8];
            stream.enqueueCopy(d, HostData.of(out)).join();
            assertEquals(42f, out[0], "mapToHost's close copies back");
            assertTrue(ctx.sharesPinnedMemoryWith(ctx));
            h.whenIdle().toCompletableFuture().join();
        }
    }

    @Test
    void hostBufferPoolSnippet() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            float[] batch = {1, 2, 3};
            DeviceBuffer device = ctx.allocate(DType.F32, batch.length);
            try (HostBufferPool pool = HostBufferPool.of(ctx, 256L << 20)) {
                HostBuffer in = pool.take(DType.F32, batch.length);
                MemorySegment.copy(batch, 0, in.segment(), ValueLayout.JAVA_FLOAT, 0, batch.length);
                stream.enqueueCopy(in, device);
                pool.give(in);
            }
            assertArrayEquals(batch, stream.sync().toFloatArray(device));
        }
    }

    @Test
    void launchSnippets() {
        Kernel scalarAdd = CpuBackendSmokeTest.SCALAR_ADD;
        Kernel printThreads = Kernel.named("print_threads").java(t -> { }).build();
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            DeviceBuffer deviceBuffer = ctx.allocate(DType.F32, 20);
            DeviceFunction sa = ctx.compile(scalarAdd), pt = ctx.compile(printThreads);
            // the guide passes (deviceBuffer, 20, 20.0f); SCALAR_ADD here is (vector, long size, float scalar)
            stream.enqueueLaunch(sa, LaunchConfig.of(1, 20), deviceBuffer, 20, 20.0f);        // grid 1, block 20
            stream.enqueueLaunch(pt, LaunchConfig.of(Dim.of(2, 2, 1), Dim.of(4, 4, 2)));   // 3-D
            LaunchConfig c = LaunchConfig.forElements(1000);                              // ceil(n/256) blocks of 256
            assertEquals(new Dim(4, 1, 1), c.grid());
            assertEquals(new Dim(256, 1, 1), c.block());
            stream.synchronize();
        }
    }

    @Test
    void futureRules() throws Exception {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream s = ctx.createStream()) {
            DeviceFuture<Void> f = s.enqueueMarker();
            AtomicReference<String> thread = new AtomicReference<>();
            CompletableFuture<Void> gate = new CompletableFuture<>(); // so that the stage is added before completion
            s.waitFor(gate);
            DeviceFuture<Void> g = s.enqueueMarker();
            CompletableFuture<Void> seen = g.thenRun(() -> thread.set(Thread.currentThread().getName()));
            gate.complete(null);
            String me = Thread.currentThread().getName();
            seen.join();
            // The guide: on the completion thread, or on a thread that waits in join() (it may poll the device itself).
            assertTrue(thread.get().startsWith("sluice-completion-cpu-0-") || thread.get().equals(me), thread.get());
            assertTrue(f.sequence() < g.sequence());
            assertThrows(UnsupportedOperationException.class, () -> f.complete(null));
            assertThrows(UnsupportedOperationException.class, () -> f.completeExceptionally(new RuntimeException()));
            assertThrows(UnsupportedOperationException.class, () -> f.obtrudeValue(null));
            assertThrows(UnsupportedOperationException.class, () -> f.completeAsync(() -> null));
            DeviceFuture<Void> slow = s.enqueueHostFunction(() -> sleep(200));
            // orTimeout and completeOnTimeout apply to a copy(): the device's future is not failed by the timeout
            CompletableFuture<Void> timed = slow.orTimeout(1, TimeUnit.MILLISECONDS);
            assertNotSame(slow, timed);
            assertNotSame(slow, slow.completeOnTimeout(null, 1, TimeUnit.MILLISECONDS));
            assertThrows(CompletionException.class, timed::join);
            slow.join();
            // a join() on the completion thread throws IllegalStateException
            DeviceStream other = ctx.createStream();
            CompletableFuture<Void> never = new CompletableFuture<>();
            DeviceFuture<Void> later = other.waitFor(never);
            CompletableFuture<Void> open = new CompletableFuture<>();
            s.waitFor(open);
            CompletableFuture<Object> inside = s.enqueueMarker().thenApply(v -> {
                try {
                    return later.join();
                } catch (Throwable t) {
                    return t;
                }
            });
            open.complete(null);
            assertInstanceOf(IllegalStateException.class, inside.join());
            never.complete(null);
            ContextOptions o = ContextOptions.defaults();
            assertEquals(64, o.markerBatch());
            o.withMarkerBatch(1).withWaitStrategy(WaitStrategy.SPIN);
        }
    }

    @Test
    void cancellationTellsObserversOnly() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream s = ctx.createStream()) {
            java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
            DeviceFuture<Void> f = s.enqueueHostFunction(() -> {
                sleep(50);
                ran.set(true);
            });
            f.cancel(true);
            s.enqueueMarker().join();
            assertTrue(ran.get());
        }
    }

    @Test
    void copiesSnippet() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            float[] x = new float[200];
            for (int i = 0; i < x.length; i++) {
                x[i] = i;
            }
            DeviceBuffer d = ctx.allocate(DType.F32, 200);
            HostBuffer pinned = ctx.allocateHost(DType.F32, 200);
            stream.enqueueCopy(HostData.of(x), d);                       // all of x
            stream.enqueueCopy(HostData.of(x, 100, 50), d.slice(0, 50)); // x[100..150) into the first 50 elements of d
            stream.enqueueCopy(d, pinned).join();                        // a HostBuffer is HostData itself
            assertEquals(100f, pinned.getFloat(0));
            assertEquals(50f, pinned.getFloat(50));
            stream.enqueueCopy(HostData.of(new short[4]), ctx.allocate(DType.BF16, 4));
            stream.enqueueCopy(HostData.of(new byte[4]), ctx.allocate(DType.BOOL, 4));
            stream.enqueueCopy(HostData.of(new long[4]), ctx.allocate(DType.U64, 4));
            ByteBuffer bb = ByteBuffer.allocate(32).position(16);
            stream.enqueueCopy(HostData.of(bb), ctx.allocate(DType.I32, 4));
            stream.enqueueCopy(HostData.of(MemorySegment.ofArray(new int[4])), ctx.allocate(DType.F32, 4));
            assertEquals("count", assertThrows(InvalidArgumentException.class,
                    () -> HostData.of(x, 150, 51)).argument(), "HostData.of refuses a range outside the array");
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> stream.enqueueCopy(HostData.of(new float[3]), d));
            assertEquals("destination", e.argument(), e.getMessage());
            InvalidArgumentException ro = assertThrows(InvalidArgumentException.class,
                    () -> stream.enqueueCopy(d.slice(0, 4), HostData.of(ByteBuffer.allocate(16).asReadOnlyBuffer())));
            assertEquals("destination", ro.argument());
            stream.synchronize();
        }
    }

    @Test
    void copy2DSnippet() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            float[] image = new float[1920 * 200];
            for (int i = 0; i < image.length; i++) {
                image[i] = i;
            }
            DeviceBuffer tile = ctx.allocate(DType.F32, 64 * 48);
            int origin = 100 * 1920 + 200;
            stream.enqueueCopy2D(HostData.of(image, origin, image.length - origin), 1920, tile, 64, 64, 48); // into a packed tile
            float[] t = stream.sync().toFloatArray(tile);
            assertEquals(origin, t[0]);
            assertEquals(origin + 1920 + 1, t[65]);
            assertThrows(InvalidArgumentException.class,
                    () -> stream.enqueueCopy2D(HostData.of(image), 10, tile, 64, 64, 48));
        }
    }

    @Test
    void tracingSnippet() {
        try (DeviceContext ctx = DeviceContext.open(ContextOptions.defaults().withTracing(true));
                DeviceStream stream = ctx.createStream()) {
            try (var l = stream.label("chunk 3")) {
                stream.enqueueMarker();
            }
            stream.synchronize();
            Trace t = ctx.trace();
            assertTrue(t.spans().stream().anyMatch(sp -> "chunk 3".equals(sp.label())), t.spans().toString());
        }
    }

    @Test
    void captureSnippet() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            DeviceBuffer b = ctx.allocate(DType.F32, 4);
            AtomicReference<DeviceFuture<Void>> inBody = new AtomicReference<>();
            DeviceGraph graph = stream.capture(s -> inBody.set(s.enqueueFill(b, 3f)));
            CompletionException e = assertThrows(CompletionException.class, () -> inBody.get().join());
            assertInstanceOf(IllegalStateException.class, e.getCause());
            graph.enqueueLaunch(stream).join();
            assertEquals(3f, stream.sync().toFloatArray(b)[3]);
            graph.close();
        }
    }

    @Test
    void repeatedWorkSnippet() {
        Kernel stepKernel = Kernels.elementwise("step")
                .input(KernelParam.scalar("k", DType.I32))
                .output(KernelParam.pointer("y", DType.F32))
                .body("y = y + (f32) k")
                .build();
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            int n = 16, chunks = 4;
            DeviceFunction step = ctx.compile(stepKernel);
            LaunchConfig config = LaunchConfig.forElements(n);
            DeviceBuffer[] buffers = {ctx.allocate(DType.F32, n), ctx.allocate(DType.F32, n)};
            // the guide's body passes (buffer, (long) n, k + c); a generated kernel takes declared params, then n
            try (RepeatedWork work = stream.repeatedWork()) {
                for (int i = 0; i < chunks; i++) {
                    int c = i;
                    work.enqueue(s -> {                              // 8 launches recorded, one graph launch
                        for (int k = 0; k < 8; k++) {
                            s.enqueueLaunch(step, config, k + c, buffers[c % 2], (long) n);
                        }
                    });
                }
                stream.synchronize();
                assertEquals(1, work.builds(), "one graph, updated for each later call");
                assertEquals(chunks, work.replays());
                assertEquals(0, work.fallbacks());
                assertTrue(work.fusedLaunches() > 0, "consecutive generated element-wise launches over one n fuse");
                work.fuseElementwise(false);
            }
        }
    }

    @Test
    void elementwiseSnippetAndN() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            long n = 8;
            DeviceBuffer x = ctx.allocate(DType.F32, n), y = ctx.allocate(DType.F32, n);
            stream.enqueueFill(x, 1f);
            stream.enqueueLaunch(ctx.compile(AXPB), LaunchConfig.forElements(n), 2.0f, x, 1.0f, y, n);
            assertEquals(3f, stream.sync().toFloatArray(y)[7]);
            InvalidArgumentException neg = assertThrows(InvalidArgumentException.class, () -> stream.enqueueLaunch(
                    ctx.compile(AXPB), LaunchConfig.forElements(n), 2.0f, x, 1.0f, y, -1L));
            assertTrue(neg.argument().endsWith(" n)"), neg.argument());             // "arguments[4] (long long n)"
            InvalidArgumentException past = assertThrows(InvalidArgumentException.class, () -> stream.enqueueLaunch(
                    ctx.compile(AXPB), LaunchConfig.forElements(n), 2.0f, x, 1.0f, y, 9L));
            assertTrue(past.argument().endsWith(" n)"), past.argument());
            assertTrue(AXPB.cudaSource().orElseThrow().contains("axpb"));
        }
    }

    @Test
    void compilationErrorSnippet() {
        CompilationException e = assertThrows(CompilationException.class, () -> Kernels.elementwise("axpb")
                .input(KernelParam.scalar("a", DType.F32))
                .output(KernelParam.pointer("y", DType.F32))
                .body("y = a * ;")
                .build());
        assertTrue(e.getMessage().contains("kernel axpb, body, line 1, column 9: expected an expression, found ';'"),
                e.getMessage());
        assertTrue(e.log().contains("y = a * ;\n        ^"), e.log());
    }

    @Test
    void languageTables() {
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            Kernel k = Kernels.elementwise("defined")
                    .input(KernelParam.pointer("x", DType.I32))
                    .output(KernelParam.pointer("q", DType.I32))
                    .output(KernelParam.pointer("r", DType.I32))
                    .output(KernelParam.pointer("c", DType.I8))
                    .output(KernelParam.pointer("p", DType.F32))
                    .body("q = x / 0; r = x % 0; c = (i8) 300.0f; p = pow(1.0f, 0.0f / 0.0f)")
                    .build();
            DeviceBuffer x = ctx.allocate(DType.I32, 1), q = ctx.allocate(DType.I32, 1), r = ctx.allocate(DType.I32, 1),
                    c = ctx.allocate(DType.I8, 1), p = ctx.allocate(DType.F32, 1);
            stream.enqueueFill(x, 7);
            stream.enqueueLaunch(ctx.compile(k), LaunchConfig.forElements(1), x, q, r, c, p, 1L);
            SyncStream s = stream.sync();
            assertEquals(0, s.toIntArray(q)[0]);
            assertEquals(7, s.toIntArray(r)[0]);
            assertEquals(1f, s.toFloatArray(p)[0]);
            byte[] cb = new byte[1];
            s.copy(c, HostData.of(cb));
            assertEquals((byte) 300, cb[0], "a float to integer cast saturates, then narrows to i8 by wrapping");
        }
        assertThrows(CompilationException.class, () -> Kernels.elementwise("bad")
                .input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y", DType.F32))
                .body("y = x * 2.0").build());
        assertThrows(InvalidArgumentException.class, () -> Kernels.elementwise("bad")
                .input(KernelParam.pointer("x", DType.U16))
                .output(KernelParam.pointer("y", DType.F32))
                .body("y = 1.0f").build());
    }

    @Test
    void fuseSnippet() {
        var scale = Kernels.elementwise("scale")
                .input(KernelParam.pointer("x", DType.F32))
                .output(KernelParam.pointer("y", DType.F32))
                .body("y = 2.0f * x");
        var shift = Kernels.elementwise("shift")
                .input(KernelParam.pointer("u", DType.F32))
                .output(KernelParam.pointer("w", DType.F32))
                .body("w = u + 1.0f");
        Kernel fused = Kernels.fuse("scale_shift")
                .stage(scale).stage(shift)          // ElementwiseBuilders, named by their builders' names
                .bind("shift.u", "scale.y")         // shift's input u reads what scale assigned to y
                .output("shift.w")                  // written to memory; scale.y stays in a register
                .build();
        assertEquals(3, fused.params().size(), "scale's x, shift's w, then n: " + fused.params());
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            DeviceBuffer x = ctx.allocate(DType.F32, 4), w = ctx.allocate(DType.F32, 4);
            stream.enqueueFill(x, 3f);
            stream.enqueueLaunch(ctx.compile(fused), LaunchConfig.forElements(4), x, w, 4L);
            assertEquals(7f, stream.sync().toFloatArray(w)[0]);
        }
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> Kernels.fuse("f").stage(scale).stage(shift).bind("shift.nope", "scale.y"));
        assertEquals("input", e.argument());
    }

    @Test
    void reductionSnippet() {
        Reduction norm = Kernels.reduction("norm")
                .input(KernelParam.pointer("v", DType.F32))
                .output(KernelParam.pointer("result", DType.F64))
                .accumulator(DType.F64)                    // I32, I64, F32 or F64: the type of a and b
                .map("(f64) v * v")                        // sees inputs, scalars, i, n
                .reduce("a + b")                           // sees a and b
                .identity("0.0")                           // a constant
                .postMap("result = sqrt(a)")               // sees scalars, outputs and a
                .build();
        try (DeviceContext ctx = DeviceContext.open(); DeviceStream stream = ctx.createStream()) {
            int rows = 2, cols = 3;
            long n = rows * cols;
            DeviceBuffer v = ctx.allocate(DType.F32, n), m = v, result = ctx.allocate(DType.F64, 1),
                    perRow = ctx.allocate(DType.F64, rows), perColumn = ctx.allocate(DType.F64, cols);
            stream.enqueueFill(v, 2f);
            try (DeviceReduction r = norm.compile(ctx)) {
                r.enqueue(stream, n, v, result);                      // all of v[0..n) into result[0]
                r.enqueueRows(stream, rows, cols, m, perRow);         // each row of a row-major [rows][cols] m
                r.enqueueColumns(stream, rows, cols, m, perColumn);   // each column
            }
            SyncStream s = stream.sync();
            assertEquals(Math.sqrt(24), s.toDoubleArray(result)[0], 1e-12);
            assertEquals(Math.sqrt(12), s.toDoubleArray(perRow)[1], 1e-12);
            assertEquals(Math.sqrt(8), s.toDoubleArray(perColumn)[2], 1e-12);
        }
    }

    @Test
    void syncFacadeSnippet() {
        Kernel scaleK = Kernel.named("scale")
                .params(KernelParam.pointer("v", DType.F32), KernelParam.scalar("n", DType.I64),
                        KernelParam.scalar("f", DType.F32))
                .java(t -> {
                    long i = t.globalIdX();
                    if (i < t.longArg(1)) {
                        var v = t.pointer(0);
                        v.setAtIndex(ValueLayout.JAVA_FLOAT, i, v.getAtIndex(ValueLayout.JAVA_FLOAT, i) * t.floatArg(2));
                    }
                })
                .build();
        try (DeviceContext ctx = DeviceContext.open()) {
            DeviceFunction fn = ctx.compile(scaleK);
            SyncStream s = ctx.sync();
            DeviceBuffer b = s.allocate(DType.F32, 1024);
            s.copy(HostData.of(new float[1024]), b);
            s.fill(b, 1.5f);
            s.launch(fn, LaunchConfig.forElements(1024), b, 1024, 2.0f);
            float[] out = s.toFloatArray(b);
            assertEquals(3f, out[1023]);
            s.toLongArray(ctx.allocate(DType.I64, 1));
            s.memset(b, (byte) 0);
            s.record(ctx.createEvent());
            s.hostFunction(() -> { });
            s.free(b);
        }
    }

    @Test
    void exceptionsHierarchy() {
        for (Class<?> c : new Class<?>[] {InvalidArgumentException.class, ClosedResourceException.class,
                DeviceException.class, DeviceOutOfMemoryException.class, CompilationException.class,
                UnsupportedOnBackendException.class, BackendUnavailableException.class}) {
            assertTrue(SluiceException.class.isAssignableFrom(c), c.getName());
            assertTrue(RuntimeException.class.isAssignableFrom(c), c.getName());
        }
        try (DeviceContext ctx = DeviceContext.open()) {
            DeviceOutOfMemoryException oom = assertThrows(DeviceOutOfMemoryException.class,
                    () -> ctx.allocate(DType.U8, 5L << 30));
            assertEquals(5L << 30, oom.requestedBytes(), "the simulator's device has 4 GiB by default");
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
