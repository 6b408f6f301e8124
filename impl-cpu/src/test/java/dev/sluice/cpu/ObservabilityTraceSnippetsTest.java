package dev.sluice.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.OperationKind;
import dev.sluice.Trace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/observability.md's trace and listener snippets, written out as a new user would from the page, and the promises
 * around them (the trace's default capacity, a trace file that cannot be opened, the listener's threads and kinds).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ObservabilityTraceSnippetsTest {

    @TempDir
    Path dir;

    @Test
    void traceSnippet() throws Exception {
        try (DeviceContext ctx = DeviceContext.open(ContextOptions.defaults().withTracing(true));
                DeviceStream s = ctx.createStream()) {
            DeviceBuffer b = ctx.allocate(DType.F32, 16);
            try (var l = s.label("batch 7")) {
                s.enqueueCopy(HostData.of(new float[16]), b);
            }
            s.synchronize();
            Trace t = ctx.trace();
            t.writeChromeJson(dir.resolve("trace.json"));       // Perfetto, chrome://tracing
            t.writeSvg(dir.resolve("trace.svg"));               // one lane per stream, copies, kernels, waits coloured
            t.select(sp -> sp.label() != null && sp.label().startsWith("batch 7"))
             .writeSvg(dir.resolve("batch7.svg"), Trace.SvgOptions.defaults().withTitle("batch 7", "").withCategories("upload", "kernel", "download"));
            assertTrue(Files.readString(dir.resolve("batch7.svg")).contains("batch 7"));
            assertEquals(0, t.dropped());
            Trace.SvgOptions.defaults().withMark("ideal", 1.0).withWindow(0, 10);
            assertEquals(OperationKind.UPLOAD, t.spans().stream().filter(sp -> "batch 7".equals(sp.label()))
                    .findFirst().orElseThrow().operationKind());
            assertEquals(1 << 20, ContextOptions.DEFAULT_TRACE_CAPACITY);
        }
    }

    @Test
    void traceFileThatCannotBeOpenedNamesTraceFile() throws Exception {
        Path file = dir.resolve("stream.json");
        try (DeviceContext ctx = DeviceContext.open(ContextOptions.defaults().withTraceCapacity(10_000).withTraceFile(file))) {
            assertTrue(ctx.isTracing());
            ctx.stream().enqueueMarker().join();
        }
        String json = Files.readString(file);
        assertTrue(json.startsWith("["), json);
        assertTrue(json.strip().endsWith("]"), json);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> DeviceContext.open(ContextOptions.defaults().withTraceFile(dir.resolve("no/such/dir/t.json"))));
        assertEquals("traceFile", e.argument());
    }

    @Test
    void listenerSnippet() {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (DeviceContext ctx = DeviceContext.open()) {
            DeviceListener.Registration r = ctx.addListener(new DeviceListener() {
                @Override
                public void operationEnqueued(DeviceStream stream, OperationKind kind, long bytes) {
                    seen.add("enq " + kind + " " + bytes);
                }

                @Override
                public void operationCompleted(DeviceStream stream, String category, long bytes, long latencyNanos,
                        Throwable failure) {
                    seen.add("done " + category + " " + Thread.currentThread().getName());
                }

                @Override
                public void streamClosed(DeviceStream stream) {
                    seen.add("closed " + stream.name());
                }
            });
            DeviceStream s = ctx.createStream();
            DeviceBuffer b = ctx.allocate(DType.F32, 4);
            s.enqueueCopy(HostData.of(new float[4]), b).join();
            s.close();
            r.close();
            assertTrue(seen.contains("enq UPLOAD 16"), seen.toString());
            // On the thread that completes the future: the completion thread, or this one, which polls the device
            // itself while it waits in join().
            String me = Thread.currentThread().getName();
            assertTrue(seen.stream().anyMatch(x -> x.startsWith("done upload sluice-completion-")
                    || x.equals("done upload " + me)), seen.toString());
            assertTrue(seen.contains("closed stream 1"), seen.toString());
        }
    }
}
