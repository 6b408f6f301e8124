package dev.sluice.cli;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.EventFlag;
import dev.sluice.HostBuffer;
import dev.sluice.LaunchConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code sluice bench}: pinned bandwidth, launch cost and the overlap of a chunked pipeline, measured as the project's
 * benchmarks measure them (benchmarks' {@code CudaBench}, {@code PairedBench}), each figure printed with how it was
 * taken, and a timeline of the 4-stream pipeline.
 *
 * <p>Everything timed runs on a context with tracing off: tracing records two timing events around every operation,
 * which is part of what a launch or a copy would then cost. Each figure is a median over rounds after warm-up rounds
 * (the first copies touch the device's pages, the first launches run interpreted), the pinned host buffer is allocated
 * once and reused by every copy. The timeline comes from a second, traced context, after an untimed warm-up run.
 */
final class Bench {

    /** Untimed rounds before the timed ones, of every measurement. */
    static final int WARM_UP_ROUNDS = 3;
    /** Timed rounds of every measurement; the median is reported. */
    static final int ROUNDS = 9;
    /** Launches per round of the launch measurement, as in the benchmarks' blocks of launches. */
    static final int LAUNCHES = 5_000;
    /** The MiB copied and pipelined without {@code --mib}: what CudaBench's smallest bandwidth size copies. */
    static final long GPU_MIB = 64;
    /** The same on the CPU simulator, whose copies and kernels run on the host: a run of a few seconds. */
    static final long CPU_MIB = 8;
    /** Streams of the overlapped pipeline. */
    static final int STREAMS = 4;

    /** What the figures mean on the CPU simulator; the demo prints the same caveat. */
    static final String CPU_NOTE = "note: on the CPU simulator these times simulate the streams' ordering, not a GPU's"
            + " speed: host threads stand in for the copy engines and the kernels, so the bandwidth, the launch cost and"
            + " the speed-up say how the simulator runs on this machine's cores, not what a GPU would do";

    private final PrintStream out;
    private final Progress progress;
    /** A line of the table: the figure, and how it was measured. */
    private record Figure(String value, String how) {
    }

    /** The table, by name. */
    private final Map<String, Figure> rows = new LinkedHashMap<>();

    Bench(PrintStream out, Progress progress) {
        this.out = out;
        this.progress = progress;
    }

    int run(Main.Options o) {
        int chunks = Math.max(STREAMS, o.chunks());
        boolean cpu;
        long bytes;
        try (DeviceContext c = o.open(ContextOptions.defaults())) {
            cpu = c.api() == Api.CPU;
            long mib = o.mib() > 0 ? o.mib() : cpu ? CPU_MIB : GPU_MIB;
            bytes = mib << 20;
            String size = mib + " MiB";
            out.println("bench on " + c.backendName() + " device " + c.id() + " (" + c.name() + "), " + size);
            DeviceStream s = c.createStream();
            try (HostBuffer host = c.allocateHost(DType.F32, bytes / 4); // pinned once, reused by every copy below
                    DeviceBuffer dev = c.allocate(DType.F32, bytes / 4)) {
                bandwidth(c, s, host, dev, size);
                launch(c, s);
                overlap(c, host, dev, chunks);
            }
        }
        Path svg = o.out().resolve("bench.svg");
        timeline(o, bytes, chunks, svg);
        progress.end();

        int width = rows.keySet().stream().mapToInt(String::length).max().orElse(10);
        int figure = rows.values().stream().mapToInt(r -> r.value().length()).max().orElse(10);
        for (Map.Entry<String, Figure> r : rows.entrySet()) {
            out.printf(Locale.ROOT, "  %-" + width + "s  %-" + figure + "s  %s%n", r.getKey(), r.getValue().value(), r.getValue().how());
        }
        if (cpu) {
            out.println(CPU_NOTE);
        }
        out.println("timeline: " + svg);
        return 0;
    }

    /**
     * Pinned upload and download of the whole buffer, each copy timed on the device by timing events recorded just
     * before and after it. The rounds are enqueued back to back, so the stream never waits for the host and no host time
     * falls between an event and its copy.
     */
    private void bandwidth(DeviceContext c, DeviceStream s, HostBuffer host, DeviceBuffer dev, String size) {
        String how = "median of " + ROUNDS + " copies after " + WARM_UP_ROUNDS + " warm-up copies, " + size
                + " pinned, reused; timed by device events around each copy";
        double up = median(copies(c, s, () -> s.enqueueCopy(host, dev), host.byteSize()));
        progress.show("bandwidth", 1, 2);
        double down = median(copies(c, s, () -> s.enqueueCopy(dev, host), host.byteSize()));
        progress.show("bandwidth", 2, 2);
        rows.put("upload (pinned)", new Figure(String.format(Locale.ROOT, "%.2f GB/s", up), how));
        rows.put("download (pinned)", new Figure(String.format(Locale.ROOT, "%.2f GB/s", down), "the same"));
    }

    /** The GB/s of each timed copy. */
    private static double[] copies(DeviceContext c, DeviceStream s, Supplier<DeviceFuture<Void>> copy,
            long bytes) {
        int n = WARM_UP_ROUNDS + ROUNDS;
        List<DeviceEvent> events = new ArrayList<>();
        try {
            for (int i = 0; i < 2 * n; i++) {
                events.add(c.createEvent(EventFlag.TIMING));
            }
            for (int r = 0; r < n; r++) {
                s.enqueueRecord(events.get(2 * r));
                copy.get();
                s.enqueueRecord(events.get(2 * r + 1));
            }
            s.synchronize();
            double[] gbps = new double[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                int i = 2 * (WARM_UP_ROUNDS + r);
                gbps[r] = bytes / (double) Math.max(1, events.get(i).elapsed(events.get(i + 1)).toNanos());
            }
            return gbps;
        } finally {
            events.forEach(DeviceEvent::close);
        }
    }

    /**
     * Host time per {@code enqueueLaunch} of an empty kernel, its future included, and per launch until the last one's
     * future completes: rounds of {@value #LAUNCHES} launches on a drained stream, as the benchmarks' launch blocks.
     */
    private void launch(DeviceContext c, DeviceStream s) {
        try (DeviceFunction empty = c.compile(CliKernels.EMPTY)) {
            launch(s, empty);
        }
    }

    private void launch(DeviceStream s, DeviceFunction empty) {
        LaunchConfig one = LaunchConfig.of(1, 1);
        double[] enqueueUs = new double[ROUNDS];
        double[] completionUs = new double[ROUNDS];
        for (int r = -WARM_UP_ROUNDS; r < ROUNDS; r++) {
            s.synchronize();
            long t0 = System.nanoTime();
            DeviceFuture<Void> last = null;
            for (int i = 0; i < LAUNCHES; i++) {
                last = s.enqueueLaunch(empty, one);
            }
            long enqueued = System.nanoTime();
            last.join();
            long done = System.nanoTime();
            if (r >= 0) {
                enqueueUs[r] = (enqueued - t0) / 1e3 / LAUNCHES;
                completionUs[r] = (done - t0) / 1e3 / LAUNCHES;
            }
            progress.show("launch", r + WARM_UP_ROUNDS + 1, WARM_UP_ROUNDS + ROUNDS);
        }
        String how = "median of " + ROUNDS + " rounds of " + LAUNCHES + " launches of an empty kernel after "
                + WARM_UP_ROUNDS + " warm-up rounds; host time per call, its future included";
        rows.put("launch, enqueue", new Figure(String.format(Locale.ROOT, "%.2f us", median(enqueueUs)), how));
        rows.put("launch, to completion", new Figure(String.format(Locale.ROOT, "%.2f us", median(completionUs)),
                "the same rounds, until the last launch's future completed"));
    }

    /** The pipeline over 1 and over {@value #STREAMS} streams, in turns, so that drift favours neither. */
    private void overlap(DeviceContext c, HostBuffer host, DeviceBuffer dev, int chunks) {
        try (DeviceFunction scale = c.compile(CliKernels.SCALE_ADD)) {
            overlap(c, scale, host, dev, chunks);
        }
    }

    private void overlap(DeviceContext c, DeviceFunction scale, HostBuffer host, DeviceBuffer dev, int chunks) {
        List<DeviceStream> one = streams(c, 1);
        List<DeviceStream> four = streams(c, STREAMS);
        double[] serial = new double[ROUNDS];
        double[] overlapped = new double[ROUNDS];
        for (int r = -WARM_UP_ROUNDS; r < ROUNDS; r++) {
            double a = pipeline(one, scale, host, dev, chunks);
            double b = pipeline(four, scale, host, dev, chunks);
            if (r >= 0) {
                serial[r] = a;
                overlapped[r] = b;
            }
            progress.show("pipeline", r + WARM_UP_ROUNDS + 1, WARM_UP_ROUNDS + ROUNDS);
        }
        one.forEach(DeviceStream::close);
        four.forEach(DeviceStream::close);
        String how = "median of " + ROUNDS + " runs after " + WARM_UP_ROUNDS + " warm-up runs, taken in turns; " + chunks
                + " chunks of " + (host.byteSize() / chunks >> 10) + " KiB, each uploaded, scaled, downloaded";
        double s1 = median(serial);
        double s4 = median(overlapped);
        rows.put("pipeline, 1 stream", new Figure(String.format(Locale.ROOT, "%.2f ms", s1), how));
        rows.put("pipeline, " + STREAMS + " streams", new Figure(String.format(Locale.ROOT, "%.2f ms (%.2fx)", s4, s1 / s4),
                "the same, chunks round-robin over the streams; speed-up against 1 stream"));
    }

    private static List<DeviceStream> streams(DeviceContext c, int n) {
        List<DeviceStream> streams = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            streams.add(c.createStream());
        }
        return streams;
    }

    /** Uploads, scales and downloads the chunks round-robin over {@code streams}; returns the wall milliseconds. */
    private static double pipeline(List<DeviceStream> streams, DeviceFunction scale, HostBuffer host, DeviceBuffer dev,
            int chunks) {
        long t0 = System.nanoTime();
        enqueuePipeline(streams, scale, host, dev, chunks).forEach(DeviceFuture::join);
        return (System.nanoTime() - t0) / 1e6;
    }

    /** Enqueues the pipeline, each chunk's operations labelled {@code chunk k}; returns each chunk's download. */
    static List<DeviceFuture<Void>> enqueuePipeline(List<DeviceStream> streams, DeviceFunction scale, HostBuffer host,
            DeviceBuffer dev, int chunks) {
        long elements = dev.count() / chunks;
        List<DeviceFuture<Void>> downloads = new ArrayList<>();
        for (int k = 0; k < chunks; k++) {
            DeviceStream s = streams.get(k % streams.size());
            HostBuffer h = host.slice(k * elements, elements);
            DeviceBuffer d = dev.slice(k * elements, elements);
            try (var l = s.label("chunk " + k)) {
                s.enqueueCopy(h, d);
                s.enqueueLaunch(scale, LaunchConfig.forElements(elements), d, 1f, 0f, elements);
                downloads.add(s.enqueueCopy(d, h));
            }
        }
        return downloads;
    }

    /**
     * The {@value #STREAMS}-stream pipeline on a traced context of its own, whose first streams are the pipeline's
     * (named stream 1 to {@value #STREAMS}): a warm-up run, then the run drawn.
     */
    private void timeline(Main.Options o, long bytes, int chunks, Path svg) {
        try (DeviceContext c = o.open(ContextOptions.defaults().withTracing(true))) {
            List<DeviceStream> streams = streams(c, STREAMS);
            try (HostBuffer host = c.allocateHost(DType.F32, bytes / 4); DeviceBuffer dev = c.allocate(DType.F32, bytes / 4);
                    DeviceFunction scale = c.compile(CliKernels.SCALE_ADD)) {
                timeline(c, streams, host, dev, scale, bytes, chunks, svg);
            }
            streams.forEach(DeviceStream::close);
        }
    }

    private void timeline(DeviceContext c, List<DeviceStream> streams, HostBuffer host, DeviceBuffer dev,
            DeviceFunction scale, long bytes, int chunks, Path svg) {
        enqueuePipeline(streams, scale, host, dev, chunks).forEach(DeviceFuture::join);
        c.synchronize();
        long warmUpEnd = SteadyState.end(c.trace());
        enqueuePipeline(streams, scale, host, dev, chunks).forEach(DeviceFuture::join);
        c.synchronize();
        SteadyState steady = SteadyState.after(c.trace(), warmUpEnd, 2 * STREAMS);
        steady.spans().writeSvg(svg, steady.svgOptions("sluice bench: " + STREAMS + " streams, " + chunks + " chunks of "
                + (bytes / chunks >> 10) + " KiB, " + c.backendName() + " " + c.name(),
                "the run after a warm-up run, " + steady.shown() + "; a row per stream, chunks round-robin"));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
