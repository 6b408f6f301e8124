package dev.sluice.benchmarks;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.MemoryInfo;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import joptsimple.OptionParser;
import joptsimple.OptionSpec;

/**
 * The soak benchmark: a server's pattern of use, kept up for minutes, to show what a short benchmark cannot: a leak
 * (heap, threads, device memory), a cost that grows with the number of streams or futures made so far, or a rare
 * wrong result. A few long-lived device buffers ({@link SoakWeights}, a model's weights and biases) are allocated once;
 * {@code --threads} workers ({@link SoakWorker}) each loop over requests: open a stream, upload a small request (a
 * Java array, sometimes a pinned buffer), launch {@link SoakKernel} over the weights and the request, download the
 * result, close the stream, and check every element against the host's reference; now and then a request cancels a
 * future before closing its stream, or allocates and frees its device buffers in stream order. Meanwhile the main
 * thread times a batch of enqueues on a stream of its own five times a second ({@link SoakProbe}).
 *
 * <p>Every {@code --report-seconds} it prints one row: elapsed time, requests served (in all, and per second over the
 * interval), wrong results and failed requests (both must stay 0), heap used right after {@link System#gc()}, live
 * threads, device memory in use ({@link DeviceContext#memoryInfo()}: total - free), the process's resident memory
 * (for information: it follows the heap's committed size), and the median per-enqueue cost of the interval. The first
 * {@code --warmup-seconds} are the warm-up (the JIT compiles the enqueue paths, pools fill up); at the end, the first
 * interval that starts after it is compared with the last by {@link SoakVerdict}: heap, threads and device memory
 * within the tolerances, the per-enqueue cost within a ratio, no wrong result and no failed request. The exit status
 * is 0 if all hold, 1 if not, 2 for bad arguments.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp ... dev.sluice.benchmarks.Soak [--api cuda|hip|cpu]
 *     [--minutes 10 | --seconds N] [--threads 4] [--report-seconds 30] [--warmup-seconds 60] [--request-elements 1024]
 *     [--weights-mib 16] [--heap-tolerance-mib 16] [--thread-tolerance 4] [--device-tolerance-mib 32] [--cost-tolerance 1.5]
 * </pre>
 *
 * Not run by CI: it takes minutes by design. See docs/benchmarks.md.
 */
public final class Soak {

    static final class Options {
        String api;
        double seconds = 600;
        int threads = 4;
        /** 0: 30 s, or 5 s for runs shorter than 5 minutes, so that a short run still has a few intervals to compare. */
        double reportSeconds;
        /** -1: a fifth of the run, at most 60 s, at least one report interval. */
        double warmupSeconds = -1;
        int requestElements = 1024;
        int weightsMiB = 16;
        double heapToleranceMiB = 16;
        /**
         * Thread pools that grow on demand (the CPU simulator's device threads, one per stream busy at that moment, and
         * its block threads; the JDK's common pool) come and go by a few; a thread per stream or per request would add
         * thousands.
         */
        int threadTolerance = 4;
        double deviceToleranceMiB = 32;
        double costTolerance = 1.5;

        static Options parse(String[] args) {
            OptionParser parser = CommandLine.parser();
            OptionSpec<String> api = parser.accepts("api").withRequiredArg();
            OptionSpec<Double> minutes = parser.accepts("minutes").withRequiredArg().ofType(Double.class);
            OptionSpec<Double> seconds = parser.accepts("seconds").withRequiredArg().ofType(Double.class);
            OptionSpec<Integer> threads = parser.accepts("threads").withRequiredArg().ofType(Integer.class);
            OptionSpec<Double> reportSeconds = parser.accepts("report-seconds").withRequiredArg().ofType(Double.class);
            OptionSpec<Double> warmupSeconds = parser.accepts("warmup-seconds").withRequiredArg().ofType(Double.class);
            OptionSpec<Integer> requestElements = parser.accepts("request-elements").withRequiredArg().ofType(Integer.class);
            OptionSpec<Integer> weightsMiB = parser.accepts("weights-mib").withRequiredArg().ofType(Integer.class);
            OptionSpec<Double> heapToleranceMiB = parser.accepts("heap-tolerance-mib").withRequiredArg().ofType(Double.class);
            OptionSpec<Integer> threadTolerance = parser.accepts("thread-tolerance").withRequiredArg().ofType(Integer.class);
            OptionSpec<Double> deviceToleranceMiB = parser.accepts("device-tolerance-mib").withRequiredArg().ofType(Double.class);
            OptionSpec<Double> costTolerance = parser.accepts("cost-tolerance").withRequiredArg().ofType(Double.class);
            Options o = new Options();
            CommandLine.parse(parser, args, usage(), set -> {
                if (set.has(minutes) && set.has(seconds)) {
                    throw new IllegalArgumentException("--minutes and --seconds both set the length: give one\n" + usage());
                }
                o.api = set.valueOf(api);
                if (set.has(minutes)) {
                    o.seconds = 60 * set.valueOf(minutes);
                }
                if (set.has(seconds)) {
                    o.seconds = set.valueOf(seconds);
                }
                if (set.has(threads)) {
                    o.threads = set.valueOf(threads);
                }
                if (set.has(reportSeconds)) {
                    o.reportSeconds = set.valueOf(reportSeconds);
                }
                if (set.has(warmupSeconds)) {
                    o.warmupSeconds = set.valueOf(warmupSeconds);
                }
                if (set.has(requestElements)) {
                    o.requestElements = set.valueOf(requestElements);
                }
                if (set.has(weightsMiB)) {
                    o.weightsMiB = set.valueOf(weightsMiB);
                }
                if (set.has(heapToleranceMiB)) {
                    o.heapToleranceMiB = set.valueOf(heapToleranceMiB);
                }
                if (set.has(threadTolerance)) {
                    o.threadTolerance = set.valueOf(threadTolerance);
                }
                if (set.has(deviceToleranceMiB)) {
                    o.deviceToleranceMiB = set.valueOf(deviceToleranceMiB);
                }
                if (set.has(costTolerance)) {
                    o.costTolerance = set.valueOf(costTolerance);
                }
            });
            if (o.reportSeconds == 0) {
                o.reportSeconds = o.seconds < 300 ? 5 : 30;
            }
            if (o.warmupSeconds < 0) {
                o.warmupSeconds = Math.max(o.reportSeconds, Math.min(60, o.seconds / 5));
            }
            if (!(o.seconds > 0) || !(o.reportSeconds > 0) || o.threads < 1 || o.requestElements < 1 || o.weightsMiB < 1
                    || o.weightsMiB > 1024) {
                throw new IllegalArgumentException("--seconds, --report-seconds, --threads and --request-elements must be"
                        + " positive, --weights-mib 1 to 1024\n" + usage());
            }
            if (!(o.costTolerance >= 1) || o.heapToleranceMiB < 0 || o.threadTolerance < 0 || o.deviceToleranceMiB < 0) {
                throw new IllegalArgumentException("tolerances cannot be negative, and --cost-tolerance is a ratio of at least 1");
            }
            return o;
        }

        static String usage() {
            return """
                    usage: Soak [--api cuda|hip|cpu] [--minutes 10 | --seconds N] [--threads 4] [--report-seconds 30]
                                [--warmup-seconds 60] [--request-elements 1024] [--weights-mib 16]
                                [--heap-tolerance-mib 16] [--thread-tolerance 4] [--device-tolerance-mib 32]
                                [--cost-tolerance 1.5]
                      --api               backend (default: the best present, as DeviceContext.open() picks)
                      --minutes/--seconds how long the workers run (default 10 minutes)
                      --threads           worker threads, each serving one request after another
                      --report-seconds    interval of the report rows (default 30; 5 for runs under 5 minutes)
                      --warmup-seconds    not judged (default: a fifth of the run, at most 60 s, at least one
                                          interval); the verdict compares the first interval that starts after it
                                          with the last
                      --request-elements  ints per request and per result
                      --weights-mib       size of each of the two long-lived buffers (weights, biases)
                      --*-tolerance*      growth allowed from the first interval after the warm-up to the last:
                                          heap after GC, live threads, device memory in use (absolute), and the
                                          per-enqueue cost (a ratio)""";
        }
    }

    /**
     * How often the main thread times a probe batch. A report interval's median is taken over these samples, and the
     * workers preempt the probe now and then (more so where they outnumber the cores): a few dozen samples per interval
     * keep one unlucky batch from moving the median.
     */
    private static final long PROBE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /** How long a worker may take to finish its request once asked to stop before it counts as hung. */
    private static final long STOP_TIMEOUT_MILLIS = 60_000;

    private static final double MIB = 1 << 20;

    private Soak() {
    }

    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("Soak: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(run(o) ? 0 : 1);
    }

    /** Runs the soak; true if the verdict is a pass. */
    static boolean run(Options o) {
        try (DeviceContext ctx = o.api == null ? DeviceContext.open() : DeviceContext.open(Api.of(o.api), 0)) {
            System.out.printf(Locale.ROOT, "# Sluice soak benchmark%n");
            System.out.printf(Locale.ROOT, "device=%s%napi=%s%ndriver=%s%ndate=%s%njava=%s%n", ctx.name(), ctx.api().id(),
                    ctx.driverVersion(), Instant.now(), Runtime.version());
            System.out.printf(Locale.ROOT, "seconds=%.0f%nthreads=%d%nreport_seconds=%.0f%nwarmup_seconds=%.0f%nrequest_elements=%d%n"
                    + "weights_mib=%d%n", o.seconds, o.threads, o.reportSeconds, o.warmupSeconds, o.requestElements, o.weightsMiB);
            if (ctx.api() == Api.CPU) {
                System.out.println("note=CPU simulator: kernels run on the host cores; these are not GPU figures");
            }
            double deviceAtStart = deviceUsedMiB(ctx);
            boolean pass;
            try (SoakWeights weights = new SoakWeights(ctx, (int) (o.weightsMiB * MIB / Integer.BYTES))) {
                pass = soak(ctx, o, weights);
            }
            ctx.synchronize(); // every free has run
            System.out.printf(Locale.ROOT, "device memory in use after freeing everything: %.1f MiB (before the weights: %.1f MiB)%n",
                    deviceUsedMiB(ctx), deviceAtStart);
            return pass;
        }
    }

    /** Starts the workers, reports every interval until the time is up, stops them and judges. */
    private static boolean soak(DeviceContext ctx, Options o, SoakWeights weights) {
        DeviceFunction kernel = ctx.compile(SoakKernel.KERNEL);
        SoakTally tally = new SoakTally();
        AtomicBoolean stop = new AtomicBoolean();
        List<SoakWorker> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<SoakSample> samples = new ArrayList<>();
        int baseline = -1;
        List<String> baselineThreads = List.of();
        List<String> lastThreads = List.of();
        try (SoakProbe probe = new SoakProbe(ctx)) {
            for (int i = 0; i < o.threads; i++) {
                workers.add(new SoakWorker(ctx, kernel, weights, tally, stop::get, o.requestElements, 1_000L + i));
            }
            System.out.println();
            System.out.printf(Locale.ROOT, "warm-up: the first %.0f s; verdict: the first interval after it against the last%n",
                    o.warmupSeconds);
            System.out.println("| elapsed s | requests | req/s | wrong | failed | heap MiB | threads | device MiB | rss MiB | ns/enqueue |");
            System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            long start = System.nanoTime();
            for (int i = 0; i < workers.size(); i++) {
                threads.add(Thread.ofPlatform().name("soak-worker-" + i).start(workers.get(i)));
            }
            long deadline = start + (long) (o.seconds * 1e9);
            long reportEvery = (long) (o.reportSeconds * 1e9);
            long nextReport = Math.min(deadline, start + reportEvery);
            long nextProbe = start + PROBE_EVERY_NANOS;
            long lastRequests = 0;
            long lastReport = start;
            while (true) {
                sleepUntil(Math.min(nextProbe, nextReport));
                long now = System.nanoTime();
                if (now >= nextProbe) {
                    probe.sample();
                    nextProbe += PROBE_EVERY_NANOS;
                }
                if (now >= nextReport) {
                    SoakSample s = sample(ctx, tally, probe, start, lastReport, lastRequests);
                    lastThreads = threadNames();
                    if (baseline < 0 && (lastReport - start) / 1e9 >= o.warmupSeconds) {
                        baseline = samples.size(); // the first interval that started after the warm-up
                        baselineThreads = lastThreads;
                    }
                    samples.add(s);
                    print(s);
                    lastRequests = s.requests();
                    lastReport = System.nanoTime();
                    if (nextReport >= deadline) {
                        break;
                    }
                    nextReport = Math.min(deadline, nextReport + reportEvery);
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            boolean stopped = stopAll(threads);
            if (stopped) { // a hung worker may still be using its buffers: the context's close frees them
                for (SoakWorker w : workers) {
                    w.close();
                }
            }
            // which threads came and went: a pool that grows on demand is not a leak, a thread per stream would be
            String threadChange = "threads since the baseline: started " + minus(lastThreads, baselineThreads) + ", ended "
                    + minus(baselineThreads, lastThreads);
            return judge(o, tally, samples, baseline, seconds, stopped, threadChange);
        } finally {
            stop.set(true); // on an exception of the main thread: do not leave the workers running
        }
    }

    /** The state at the end of an interval that began at {@code intervalStart} with {@code requestsBefore} served. */
    private static SoakSample sample(DeviceContext ctx, SoakTally tally, SoakProbe probe, long start, long intervalStart,
            long requestsBefore) {
        long requests = tally.requests.sum();
        long now = System.nanoTime();
        double perSecond = (requests - requestsBefore) / ((now - intervalStart) / 1e9);
        System.gc(); // the heap figure is what is still reachable, not what the collector has not got round to yet
        double heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / MIB;
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        return new SoakSample((now - start) / 1e9, requests, perSecond, tally.wrong.sum(), tally.errors.sum(), heap, threads,
                deviceUsedMiB(ctx), rssMiB(), probe.takeMedian());
    }

    private static void print(SoakSample s) {
        System.out.printf(Locale.ROOT, "| %.1f | %d | %.0f | %d | %d | %.1f | %d | %.1f | %.0f | %.0f |%n", s.elapsedSeconds(),
                s.requests(), s.perSecond(), s.wrong(), s.errors(), s.heapMiB(), s.threads(), s.deviceMiB(), s.rssMiB(),
                s.enqueueNs());
    }

    /** Waits for every worker to finish its request; a worker still running after the timeout is shown and counts as hung. */
    private static boolean stopAll(List<Thread> threads) {
        boolean all = true;
        for (Thread t : threads) {
            try {
                if (!t.join(Duration.ofMillis(STOP_TIMEOUT_MILLIS))) {
                    all = false;
                    System.err.println("soak: " + t.getName() + " did not stop within " + STOP_TIMEOUT_MILLIS / 1000 + " s:");
                    for (StackTraceElement e : t.getStackTrace()) {
                        System.err.println("    at " + e);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return all;
    }

    /** Prints the summary and the verdict of {@code samples[baseline]} against the last sample (-1: there was none). */
    private static boolean judge(Options o, SoakTally tally, List<SoakSample> samples, int baseline, double seconds,
            boolean stopped, String threadChange) {
        SoakSample last = samples.getLast();
        System.out.println();
        System.out.printf(Locale.ROOT,
                "summary: %d requests in %.1f s (%.0f/s) on %d threads, %d wrong, %d failed; %d through pinned buffers, %d with"
                        + " stream-ordered buffers, %d futures cancelled (%d more asked too late)%n",
                last.requests(), seconds, last.requests() / seconds, o.threads, tally.wrong.sum(), tally.errors.sum(),
                tally.pinned.sum(), tally.streamOrdered.sum(), tally.cancelled.sum(), tally.cancelTooLate.sum());
        if (baseline < 0 || baseline == samples.size() - 1) {
            System.out.println("note: no interval after the warm-up but the last: nothing can be seen growing; run longer,"
                    + " report more often or shorten --warmup-seconds");
        }
        SoakSample first = samples.get(baseline < 0 ? samples.size() - 1 : baseline);
        if (last.threads() != first.threads()) {
            System.out.println(threadChange);
        }
        SoakVerdict verdict = new SoakVerdict(o.heapToleranceMiB, o.threadTolerance, o.deviceToleranceMiB, o.costTolerance);
        List<String> lines = new ArrayList<>(verdict.judge(first, last));
        if (!stopped) {
            lines.set(lines.size() - 1, "workers: some did not stop (see above): HUNG");
            lines.add("verdict=FAIL");
        }
        lines.forEach(System.out::println);
        return lines.getLast().equals("verdict=PASS");
    }

    /** The names of the live platform threads, sorted. */
    private static List<String> threadNames() {
        List<String> names = new ArrayList<>();
        for (var info : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            names.add(info.getThreadName());
        }
        names.sort(null);
        return names;
    }

    /** The elements of {@code a} not in {@code b}, each occurrence counted (two threads may share a name). */
    private static List<String> minus(List<String> a, List<String> b) {
        List<String> rest = new ArrayList<>(a);
        b.forEach(rest::remove);
        return rest;
    }

    private static double deviceUsedMiB(DeviceContext ctx) {
        MemoryInfo m = ctx.memoryInfo();
        return (m.total() - m.free()) / MIB;
    }

    /** The resident set size from {@code /proc/self/status}; NaN where there is none (not Linux). */
    private static double rssMiB() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0; // in kB
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or a format this does not know: the column is for information only
        }
        return Double.NaN;
    }

    private static void sleepUntil(long nanoTime) {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
