package dev.sluice.micrometer;

import dev.sluice.ClosedResourceException;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFigure;
import dev.sluice.DeviceListener;
import dev.sluice.DeviceStream;
import dev.sluice.InvalidArgumentException;
import dev.sluice.MemoryInfo;
import dev.sluice.OperationKind;
import dev.sluice.TraceSpan;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Binds one {@link DeviceContext}'s meters to a {@link MeterRegistry}: operations enqueued, completed and failed, in
 * flight, their completion latency (a timer), bytes copied by direction, device memory, allocations and frees, kernel
 * compilations and faults. The meters are the figures of {@link DeviceFigure}, under its
 * {@link DeviceFigure#metricName() names}, units and descriptions (the figures sluice-flink and sluice-spark report
 * too), and one more of the binder's own: {@value #UNRECORDED}, the latencies its recorder could not keep up with.
 * {@code sluice.operations.enqueued}, {@code sluice.copy.bytes} and {@code sluice.operation.latency} are per stream and
 * category (below); the others are the context's.
 *
 * <pre>{@code
 * DeviceMetrics metrics = new DeviceMetrics(context);
 * metrics.bindTo(registry);          // registers a DeviceListener on the context
 * ...
 * metrics.close();                   // removes the listener and the meters
 * }</pre>
 *
 * <p><b>Tags and their cardinality.</b> Every meter is tagged {@code backend} (one value per binder: {@code cpu},
 * {@code cuda}, {@code hip}), {@code device} (the device's index: one value per binder) and the extra tags given. Per
 * stream meters add {@code stream} ({@link DeviceStream#name()}: {@code default}, {@code stream 1}, {@code stream 2},
 * ...; a context numbers every stream it ever creates anew, so over a service's life the values are unbounded, but
 * a closed stream's meters are removed at its {@link DeviceStream#close()}, and the context's close removes those of
 * every stream: the meters present at once are bounded by the streams open at once), {@code category} (the operation's
 * {@link dev.sluice.TraceSpan#category()}: at most 14 values), {@code direction} (of {@code sluice.copy.bytes}: 4
 * values) and {@code outcome} ({@code success}, {@code failure}). So a binder holds at most 8 meters of its own plus,
 * per open stream, 14 enqueue counters, 4 byte counters, 28 timers and 14 unrecorded counters, each made only when
 * first needed. The operation counts of a closed stream live on in the context-wide {@code sluice.operations.completed}
 * and {@code sluice.operations.in.flight}.
 *
 * <p><b>Distribution statistics are opt-in.</b> The latency timers publish a count, a total and a maximum only: no
 * client-side percentiles and no histogram buckets, which would multiply each timer's series by their number (some 70
 * buckets for a percentile histogram). Ask for them with {@link #percentiles} and {@link #percentileHistogram}, or in
 * the registry with a {@code MeterFilter} whose {@code configure} returns a {@code DistributionStatisticConfig} for
 * {@code sluice.operation.latency} (which then applies to every binder of that registry).
 *
 * <p>It observes through {@link DeviceContext#addListener}. Per operation, the enqueuing thread (under the stream's
 * lock) adds to plain per-stream counts, which function counters read when the registry is scraped; the completion
 * thread, the only one that completes operations successfully, adds to a plain count of its own and puts the
 * operation's latency into its stream's ring (a plain store and a release store), for every operation or a sample of them ({@link #latencySampling}). A recorder thread shared by every
 * binder ({@code sluice-metrics-recorder}, running while some binder is bound) moves the rings into the latency timers
 * every {@value #RECORD_MILLIS} ms: the timers' records, the dearest part by far, stay off the threads
 * that enqueue and complete operations. A timer therefore lags its operations by about that long ({@link #flush()}
 * records at once). A latency that finds its ring full (more than {@value #RING} operations of one stream before the
 * recorder comes: completions sustained faster than the recorder can time them, some four million a second on a
 * 16-core host) is not timed but counted, in {@code sluice.operation.latency.unrecorded}: the completion thread never
 * records a timer itself, which at that rate would make it, and so every future's completion, the bottleneck. The
 * timer is then a sample of the stream's operations, and its count falls behind {@code sluice.operations.completed} by
 * that counter. Each stream's ring takes 64 KiB, until the stream closes. Device memory gauges read {@link DeviceContext#memoryInfo()} when the
 * registry is scraped; they read NaN once the context is closed or faulted. Bind one registry per instance (a {@code CompositeMeterRegistry} for more).
 */
public final class DeviceMetrics implements MeterBinder, AutoCloseable {

    /** The binder's own counter, beside {@link DeviceFigure}'s: latencies not timed because the ring was full. */
    static final String UNRECORDED = "sluice.operation.latency.unrecorded";
    /** How often the recorder thread moves the latency rings into the timers. */
    static final long RECORD_MILLIS = 1;
    /** Latencies a stream's ring holds between two visits of the recorder (64 KiB a stream). */
    static final int RING = 4096;
    /** The recorder thread, shared by every binder: a daemon that runs only while some binder is bound and open. */
    private static final ScheduledExecutorService RECORDER =
            Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sluice-metrics-recorder");
                t.setDaemon(true);
                return t;
            });
    /** The binders the recorder visits: bound, not closed, their context open. */
    private static final Set<DeviceMetrics> RECORDED = ConcurrentHashMap.newKeySet();
    /** The recorder's periodic task while {@link #RECORDED} is not empty; guarded by {@link #RECORDED}'s monitor. */
    private static java.util.concurrent.@Nullable ScheduledFuture<?> recorderTask;

    /** Adds {@code m} to the recorder's visits, starting the recorder if it was idle. */
    private static void startRecording(DeviceMetrics m) {
        synchronized (RECORDED) {
            RECORDED.add(m);
            if (recorderTask == null) {
                recorderTask = RECORDER.scheduleWithFixedDelay(DeviceMetrics::recordAll, RECORD_MILLIS, RECORD_MILLIS,
                        TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Whether the recorder visits this binder (for tests). */
    boolean isRecorded() {
        return RECORDED.contains(this);
    }

    /** Whether the recorder runs at all (for tests). */
    static boolean recorderRunning() {
        synchronized (RECORDED) {
            return recorderTask != null;
        }
    }

    /** Removes {@code m}; the recorder stops once it visits no binder. */
    private static void stopRecording(DeviceMetrics m) {
        synchronized (RECORDED) {
            RECORDED.remove(m);
            if (RECORDED.isEmpty() && recorderTask != null) {
                recorderTask.cancel(false);
                recorderTask = null;
            }
        }
    }

    /**
     * The recorder's period: drains every binder's rings. A binder whose context has closed (it reports nothing more) is
     * drained a last time and dropped, so that a binder never closed keeps neither its context reachable nor the
     * recorder running.
     */
    private static void recordAll() {
        for (DeviceMetrics m : RECORDED) {
            try {
                m.flush();
            } catch (RuntimeException e) {
                // A registry that throws must not stop the recorder for every binder: this period of this one is dropped.
                System.getLogger(DeviceMetrics.class.getName()).log(System.Logger.Level.WARNING,
                        "recording latencies of " + m.context + " failed; dropped", e);
            }
            if (m.context.isClosed()) {
                stopRecording(m);
            }
        }
    }

    /**
     * The operation categories, each with a fixed index into a stream's meter arrays: {@code TraceSpan}'s constants, the
     * very strings the hook passes, which {@link #index} compares by identity. The copies come first (their bytes are
     * counted by index below 4).
     */
    private static final List<String> CATEGORIES = List.of(TraceSpan.UPLOAD, TraceSpan.DOWNLOAD,
            TraceSpan.DEVICE_TO_DEVICE, TraceSpan.PEER, TraceSpan.MEMSET, TraceSpan.KERNEL, TraceSpan.RECORD,
            TraceSpan.WAIT, TraceSpan.HOST, TraceSpan.MARKER, TraceSpan.ALLOC, TraceSpan.FREE, TraceSpan.GRAPH,
            TraceSpan.REPLAY);

    private final DeviceContext context;
    private final Tags tags;
    private final AtomicLong allocatedBytes = new AtomicLong();
    private final Map<DeviceStream, StreamMeters> streams = new ConcurrentHashMap<>();
    /** The binder's own meters, not those of a stream (each {@link StreamMeters} keeps its own). */
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    /**
     * Operations enqueued and completed on streams whose meters are gone (closed streams), so that the context-wide
     * counts never go back. Written, and read with the live streams' counts, under {@link #totalsLock}: a scrape never
     * sees a closed stream's counts twice or not at all.
     */
    private long retiredEnqueued;
    private long retiredCompleted;
    private long retiredFailed;
    private final Object totalsLock = new Object();
    /** None by default: percentiles and histograms multiply the series of every timer ({@link #percentiles}). */
    private double[] percentiles = {};
    private boolean percentileHistogram;
    /** Of each stream and category, every {@code oneIn}-th successful operation's latency goes to the timer. */
    private int oneIn = 1; // set before bindTo, whose listener registration publishes it
    private volatile boolean closed;
    private @Nullable MeterRegistry registry;
    private DeviceListener.@Nullable Registration registration;
    private @Nullable Counter faults;
    private @Nullable Counter allocations;
    private @Nullable Counter frees;
    /** Held while the rings are drained: one consumer at a time ({@link LatencyRing}). Tests hold it to stall the recorder. */
    final Object drainLock = new Object();
    /** Each stream's ring: {@link #RING}; tests make it smaller before {@link #bindTo} to fill it. */
    int ringCapacity = RING;

    /** Meters for {@code context}, tagged {@code backend} and {@code device}. */
    public DeviceMetrics(DeviceContext context) {
        this(context, Tags.empty());
    }

    /**
     * Meters for {@code context}, tagged {@code backend}, {@code device} and {@code extraTags} (a service's own).
     *
     * @throws InvalidArgumentException naming the argument for a null context or tags, or {@code extraTags} if it holds
     *                                  a null
     */
    public DeviceMetrics(DeviceContext context, Iterable<Tag> extraTags) {
        if (context == null) {
            throw new InvalidArgumentException("context", "is null");
        }
        this.context = context;
        this.tags = Tags.of(checkTags(extraTags)).and("backend", context.backendName(), "device", Integer.toString(context.id()));
    }

    /**
     * {@code extraTags}, checked: Micrometer's {@code Tags.of} would throw a {@link NullPointerException} from inside.
     *
     * @throws InvalidArgumentException naming {@code extraTags} if it is null or holds a null
     */
    static List<Tag> checkTags(@Nullable Iterable<Tag> extraTags) {
        if (extraTags == null) {
            throw new InvalidArgumentException("extraTags", "is null; Tags.empty() for none");
        }
        List<Tag> tags = new ArrayList<>(); // read once: the iterable may be one that can be read only once
        for (Tag t : extraTags) {
            if (t == null) {
                throw new InvalidArgumentException("extraTags", "holds a null tag, at position " + tags.size());
            }
            tags.add(t);
        }
        return tags;
    }

    /**
     * The percentiles {@code sluice.operation.latency} computes in the process, each one more series per timer (none by
     * default, or as a registry's {@code MeterFilter} configures). Percentiles computed in the process cannot be
     * aggregated across streams or instances; {@link #percentileHistogram} buckets can, from which Prometheus computes
     * them ({@code histogram_quantile}). Call before {@link #bindTo}.
     *
     * @return this
     * @throws InvalidArgumentException naming {@code percentiles} if null or for a value outside 0..1
     * @throws IllegalStateException    once bound
     */
    public synchronized DeviceMetrics percentiles(double... percentiles) {
        if (percentiles == null) {
            throw new InvalidArgumentException("percentiles", "is null; call percentiles() with none for none");
        }
        for (double p : percentiles) {
            if (!(p >= 0 && p <= 1)) {
                throw new InvalidArgumentException("percentiles", "value " + p + " is outside 0..1");
            }
        }
        if (registry != null) {
            throw new IllegalStateException("percentiles are set before bindTo");
        }
        this.percentiles = percentiles.clone();
        return this;
    }

    /**
     * Whether {@code sluice.operation.latency} publishes a percentile histogram: some 70 buckets, each a series per
     * timer (off by default, or as a registry's {@code MeterFilter} configures). Call before {@link #bindTo}.
     *
     * @param on true to publish the buckets
     * @return this
     * @throws IllegalStateException once bound
     */
    public synchronized DeviceMetrics percentileHistogram(boolean on) {
        if (registry != null) {
            throw new IllegalStateException("the percentile histogram is set before bindTo");
        }
        this.percentileHistogram = on;
        return this;
    }

    /**
     * Records the latency of one successful operation in {@code oneIn} of each stream and category in
     * {@code sluice.operation.latency} (its first, then every {@code oneIn}-th), and of every failed one; 1, the
     * default, records all. The timer is the binder's dearest part per operation (its histogram and percentiles), so a
     * service that enqueues millions of operations a second samples to bound it. The timer's count and total are then
     * those of the sampled operations: rates of operations come from {@code sluice.operations.enqueued} and
     * {@code sluice.operations.completed}, which count every one. A workload whose operations of one stream and
     * category alternate in a period that divides {@code oneIn} is sampled unevenly. Call before {@link #bindTo}.
     *
     * @return this
     * @throws InvalidArgumentException naming {@code oneIn} for a value below 1
     * @throws IllegalStateException    once bound
     */
    public synchronized DeviceMetrics latencySampling(int oneIn) {
        if (oneIn < 1) {
            throw new InvalidArgumentException("oneIn", "is " + oneIn + "; at least 1 (1 records every operation)");
        }
        if (registry != null) {
            throw new IllegalStateException("latency sampling is set before bindTo");
        }
        this.oneIn = oneIn;
        return this;
    }

    /**
     * Registers the meters in {@code registry} and starts listening to the context. Refused, with nothing registered,
     * where the binder or its context is closed.
     *
     * @throws InvalidArgumentException naming {@code registry} if it is null
     * @throws IllegalStateException    if already bound
     * @throws ClosedResourceException  if this binder or its context is closed
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (registry == null) {
            throw new InvalidArgumentException("registry", "is null");
        }
        if (this.registry != null) {
            throw new IllegalStateException("DeviceMetrics of " + context + " is already bound to " + this.registry
                    + "; bind a CompositeMeterRegistry to report to several");
        }
        // A closed binder would listen and keep its meters until closed again; a closed context refuses the listener,
        // after the meters were registered.
        if (closed) {
            throw new ClosedResourceException("DeviceMetrics of " + context);
        }
        if (context.isClosed()) {
            throw new ClosedResourceException(context.toString());
        }
        this.registry = registry;
        try {
            bindMeters();
        } catch (RuntimeException e) {
            // The context closed since the check: nothing stays registered, and the binder is unbound as before.
            for (Meter m : meters) {
                registry.remove(m);
            }
            meters.clear();
            this.registry = null;
            throw e;
        }
    }

    /** The meters in the bound registry, the listener, the recorder. */
    private void bindMeters() {
        // Completed is read first: every completion counted was enqueued before, so the difference is never negative.
        meters.add(gauge(DeviceFigure.OPERATIONS_IN_FLIGHT, this, m -> -m.completedTotal() + m.enqueuedTotal()));
        meters.add(counter(DeviceFigure.OPERATIONS_COMPLETED, this, DeviceMetrics::completedTotal));
        meters.add(counter(DeviceFigure.OPERATIONS_FAILED, this, DeviceMetrics::failedTotal));
        meters.add(gauge(DeviceFigure.MEMORY_DEVICE_FREE, this, m -> m.memory(true)));
        meters.add(gauge(DeviceFigure.MEMORY_DEVICE_USED, this, m -> m.memory(false)));
        meters.add(gauge(DeviceFigure.MEMORY_ALLOCATED, allocatedBytes, AtomicLong::get));
        allocations = counter(DeviceFigure.MEMORY_ALLOCATIONS);
        frees = counter(DeviceFigure.MEMORY_FREES);
        faults = counter(DeviceFigure.FAULTS);
        meters.add(allocations);
        meters.add(frees);
        meters.add(faults);
        registration = context.addListener(new Listener());
        startRecording(this);
    }

    /** A gauge of {@code figure}, tagged with the binder's tags, in the bound registry. */
    private <T> Gauge gauge(DeviceFigure figure, T obj, java.util.function.ToDoubleFunction<T> f) {
        return Gauge.builder(figure.metricName(), obj, f).tags(tags).baseUnit(baseUnit(figure))
                .description(figure.description()).register(registryOrThrow());
    }

    /** A function counter of {@code figure}: a count kept elsewhere, read at each scrape. */
    private <T> FunctionCounter counter(DeviceFigure figure, T obj, java.util.function.ToDoubleFunction<T> f) {
        return FunctionCounter.builder(figure.metricName(), obj, f).tags(tags).baseUnit(baseUnit(figure))
                .description(figure.description()).register(registryOrThrow());
    }

    /** A counter of {@code figure} that the listener increments. */
    private Counter counter(DeviceFigure figure) {
        return Counter.builder(figure.metricName()).tags(tags).baseUnit(baseUnit(figure)).description(figure.description())
                .register(registryOrThrow());
    }

    /** Micrometer's base unit: bytes for sizes (which registries scale); counts of things carry none, as before. */
    static @Nullable String baseUnit(DeviceFigure figure) {
        return figure.unit().equals("bytes") ? "bytes" : null;
    }

    /**
     * Records the latencies the completion thread has put into the rings and the recorder has not yet taken, now, on the
     * calling thread: for a test, or before a last scrape. The recorder thread does it every {@value #RECORD_MILLIS} ms.
     */
    public void flush() {
        synchronized (drainLock) {
            for (StreamMeters m : streams.values()) {
                m.ring.drain(m);
            }
        }
    }

    private double memory(boolean free) {
        if (context.isClosed() || context.isFaulted()) {
            return Double.NaN;
        }
        try {
            MemoryInfo m = context.memoryInfo();
            return free ? m.free() : m.total() - m.free();
        } catch (RuntimeException e) {
            return Double.NaN; // closed between the check and the call: a gauge must not throw into the scrape
        }
    }

    /** Stops listening and removes every meter this binder registered. Idempotent and thread-safe. */
    @Override
    public synchronized void close() {
        closed = true;
        if (registration != null) {
            registration.close();
            registration = null;
        }
        stopRecording(this);
        for (StreamMeters m : streams.values()) {
            retire(m);
        }
        MeterRegistry r = registry;
        if (r != null) {
            for (Meter m : meters) {
                r.remove(m);
            }
        }
        meters.clear();
    }

    /** How many streams have meters now: those that enqueued an operation and are not closed (for tests). */
    int streamsMetered() {
        return streams.size();
    }

    /**
     * Removes a stream's meters and forgets it, its counts added to the context-wide ones. Idempotent: the stream's
     * close, the context's close and the binder's close may each come to it.
     */
    private void retire(StreamMeters m) {
        synchronized (totalsLock) {
            if (!streams.remove(m.stream, m)) {
                return;
            }
            m.closed = true;
            retiredEnqueued += m.enqueued();
            retiredCompleted += m.completed();
            retiredFailed += m.failedCountBy.sum();
        }
        MeterRegistry r = registry;
        if (r != null) {
            for (Meter meter : m.meters) {
                r.remove(meter);
            }
        }
        m.meters.clear();
    }

    /**
     * One stream's counts and meters. Each count has a single writer (the failures aside): the enqueue counts the
     * listener's enqueue callback, which runs under the stream's enqueue lock, and the completion counts the completion
     * thread. So an increment is exact without an atomic instruction ({@link Counts}), and the function counters read
     * the counts at each scrape. The two threads' counts lie on lines of their own.
     */
    private final class StreamMeters implements LatencyRing.Sink {
        final DeviceStream stream;
        final Tags streamTags;
        /** This stream's meters, removed when it closes ({@link #retire}). */
        final List<Meter> meters = new CopyOnWriteArrayList<>();
        /** Set when the stream's meters are removed: a meter registered after that is removed at once ({@link #kept}). */
        volatile boolean closed;
        /** Operations and bytes enqueued, per category: written by the enqueue callback alone, under the stream's lock. */
        final Counts enqueuedBy = new Counts(CATEGORIES.size());
        final Counts bytesBy = new Counts(4);
        /**
         * Successful completions per category. Only the context's completion thread completes operations successfully, so
         * it is their single writer, as of {@link #unrecordedBy}.
         */
        final Counts succeededBy = new Counts(CATEGORIES.size());
        /** Failed completions per category: atomic, because a closing thread also fails operations. */
        final Counts failedCountBy = new Counts(CATEGORIES.size());
        final AtomicReferenceArray<Timer> latencyBy = new AtomicReferenceArray<>(CATEGORIES.size());
        final AtomicReferenceArray<Timer> failedBy = new AtomicReferenceArray<>(CATEGORIES.size());
        /** Latencies of successful operations that found the ring full, per category: counted, not timed. */
        final Counts unrecordedBy = new Counts(CATEGORIES.size());
        /** Successful operations' latencies on their way to {@link #latencyBy}, each with its category. */
        final LatencyRing ring = new LatencyRing(ringCapacity);

        StreamMeters(DeviceStream stream) {
            this.stream = stream;
            this.streamTags = tags.and("stream", stream.name());
        }

        /** Under the stream's lock. The first operation of a category registers its counter. */
        void enqueued(int c, long bytes) {
            if (enqueuedBy.add(c, 1) == 0) {
                register(this, FunctionCounter.builder(DeviceFigure.OPERATIONS_ENQUEUED.metricName(), enqueuedBy, a -> a.get(c))
                        .tags(streamTags).tag("category", CATEGORIES.get(c)).description(DeviceFigure.OPERATIONS_ENQUEUED.description()));
            }
            if (bytes > 0 && c < 4 && bytesBy.add(c, bytes) == 0) {
                register(this, FunctionCounter.builder(DeviceFigure.COPY_BYTES.metricName(), bytesBy, a -> a.get(c)).tags(streamTags)
                        .tag("direction", CATEGORIES.get(c)).baseUnit("bytes")
                        .description(DeviceFigure.COPY_BYTES.description()));
            }
        }

        long enqueued() {
            return enqueuedBy.sum();
        }

        /**
         * Counts a completion and takes its latency: every failure (recorded at once: they are rare, and their timer is
         * another), and of successes the first and then every {@code oneIn}-th, put into the ring for the recorder.
         */
        void completed(int c, long latencyNanos, boolean failed) {
            if (failed) {
                failedCountBy.addAtomic(c, 1);
                latency(c, true).record(latencyNanos, TimeUnit.NANOSECONDS);
                return;
            }
            long n = succeededBy.add(c, 1);
            if (n == 0) {
                latency(c, false); // the category's first success registers its timer: the meter exists from then on
            }
            if (oneIn == 1 || n % oneIn == 0) { // no 64-bit division unless sampling
                if (!ring.offer(LatencyRing.entry(c, latencyNanos))) {
                    unrecorded(c); // the recorder fell behind: timing it here would hold up the completions
                }
            }
        }

        /** Counts a latency the ring refused; the first of a category registers its counter. The completion thread only. */
        private void unrecorded(int c) {
            if (unrecordedBy.add(c, 1) == 0) {
                register(this, FunctionCounter.builder(UNRECORDED, unrecordedBy, a -> a.get(c))
                        .tags(streamTags).tag("category", CATEGORIES.get(c))
                        .description("Successful operations whose latency was not timed: completed faster than the"
                                + " recorder could time them"));
            }
        }

        /** The recorder's side: one latency of category {@code c} from the ring into its timer. */
        @Override
        public void record(int c, long latencyNanos) {
            latency(c, false).record(latencyNanos, TimeUnit.NANOSECONDS);
        }

        long completed() {
            return succeededBy.sum() + failedCountBy.sum();
        }

        Timer latency(int c, boolean failed) {
            AtomicReferenceArray<Timer> by = failed ? failedBy : latencyBy;
            Timer m = by.get(c);
            if (m == null) {
                Timer.Builder b = Timer.builder(DeviceFigure.OPERATION_LATENCY.metricName()).tags(streamTags)
                        .tag("category", CATEGORIES.get(c)).tag("outcome", failed ? "failure" : "success")
                        .description(DeviceFigure.OPERATION_LATENCY.description());
                // Only what was asked for: left unset, the registry's MeterFilters decide (and by default publish neither).
                if (percentiles.length > 0) {
                    b.publishPercentiles(percentiles);
                }
                if (percentileHistogram) {
                    b.publishPercentileHistogram();
                }
                m = register(this, b);
                by.set(c, m);
            }
            return m;
        }
    }

    /**
     * Registers a stream's meter, keeping it for the stream's or the binder's close; racing first uses get the same
     * meter from the registry.
     */
    private void register(StreamMeters s, FunctionCounter.Builder<?> b) {
        kept(s, b.register(registryOrThrow()));
    }

    private Timer register(StreamMeters s, Timer.Builder b) {
        return kept(s, b.register(registryOrThrow()));
    }

    /**
     * Keeps {@code m} for the close of its stream or of the binder, or removes it at once if such a close ran meanwhile
     * (a completion that passed the listener's check just before it, or the recorder's last drain). Both sides write,
     * then read: the closed flags and the meter list are volatile, so either the close sees the meter or this sees the
     * flag.
     */
    private <M extends Meter> M kept(StreamMeters s, M m) {
        s.meters.add(m);
        MeterRegistry r = registry;
        if ((closed || s.closed) && r != null) {
            r.remove(m);
        }
        return m;
    }

    private MeterRegistry registryOrThrow() {
        MeterRegistry r = registry;
        if (r == null) {
            throw new IllegalStateException("not bound");
        }
        return r;
    }

    /**
     * Each {@link OperationKind}'s index in {@link #CATEGORIES}, by ordinal: its category's, a staged peer copy counting
     * as {@code peer} (one series for the bytes moved between devices, however the driver moved them).
     */
    private static final int[] KIND_INDEX = new int[OperationKind.values().length];

    static {
        for (OperationKind k : OperationKind.values()) {
            int i = CATEGORIES.indexOf(k == OperationKind.PEER_STAGED ? OperationKind.PEER.category() : k.category());
            KIND_INDEX[k.ordinal()] = i >= 0 ? i : CATEGORIES.indexOf(TraceSpan.GRAPH);
        }
    }

    /** The index of {@code kind}'s series in {@link #CATEGORIES}. */
    static int index(OperationKind kind) {
        return KIND_INDEX[kind.ordinal()];
    }

    /**
     * The meters of {@code stream}, made at its first operation; null for a closed stream that has none (a completion
     * reported after its close), so that a closed stream's meters are not made again.
     */
    private @Nullable StreamMeters meters(DeviceStream stream) {
        StreamMeters m = streams.get(stream);
        if (m != null) {
            return m;
        }
        if (stream.isClosed()) {
            return null;
        }
        m = streams.computeIfAbsent(stream, StreamMeters::new);
        if (stream.isClosed()) {
            retire(m); // closed while this made it: its close may have looked before the map had it
        }
        return m;
    }

    private long enqueuedTotal() {
        synchronized (totalsLock) {
            long sum = retiredEnqueued;
            for (StreamMeters m : streams.values()) {
                sum += m.enqueued();
            }
            return sum;
        }
    }

    private long failedTotal() {
        synchronized (totalsLock) {
            long sum = retiredFailed;
            for (StreamMeters m : streams.values()) {
                sum += m.failedCountBy.sum();
            }
            return sum;
        }
    }

    private long completedTotal() {
        synchronized (totalsLock) {
            long sum = retiredCompleted;
            for (StreamMeters m : streams.values()) {
                sum += m.completed();
            }
            return sum;
        }
    }

    /** A completion of a stream whose meters are gone: it still counts in the context-wide completions. */
    private void completedAfterClose(boolean failed) {
        synchronized (totalsLock) {
            retiredCompleted++;
            if (failed) {
                retiredFailed++;
            }
        }
    }

    /**
     * The context's listener: the only code on the operations' path. Each of its two operation callbacks remembers the
     * last stream's meters (a plain field: {@link StreamMeters} is immutable but for its atomics), so a thread feeding one
     * stream skips the map lookup; the enqueue side and the completion side run on different threads, hence two.
     */
    private final class Listener implements DeviceListener {
        private @Nullable StreamMeters lastEnqueued;
        private @Nullable StreamMeters lastCompleted;

        @Override
        public void operationEnqueued(DeviceStream stream, OperationKind kind, long bytes) {
            if (closed) {
                return; // an enqueue racing close(): registering its meters now would leave them behind
            }
            StreamMeters m = lastEnqueued; // a closed stream enqueues nothing more, so its meters need no check here
            if (m == null || m.stream != stream) {
                m = meters(stream);
                lastEnqueued = m;
                if (m == null) {
                    return; // a closed stream enqueues nothing; the engine refuses it first
                }
            }
            m.enqueued(index(kind), bytes);
        }

        @Override
        public void operationCompleted(DeviceStream stream, OperationKind kind, long bytes, long latencyNanos,
                @Nullable Throwable failure) {
            if (closed) {
                return; // completions of operations reported before close() may still arrive
            }
            StreamMeters m = lastCompleted;
            if (m == null || m.stream != stream || m.closed) {
                m = meters(stream);
                lastCompleted = m;
                if (m == null || m.closed) {
                    completedAfterClose(failure != null); // counted, not timed: the stream's meters are gone
                    return;
                }
            }
            m.completed(index(kind), latencyNanos, failure != null);
        }

        @Override
        public void memoryAllocated(DeviceContext c, long bytes) {
            allocatedBytes.addAndGet(bytes);
            Counter a = allocations;
            if (a != null) {
                a.increment();
            }
        }

        @Override
        public void memoryFreed(DeviceContext c, long bytes) {
            allocatedBytes.addAndGet(-bytes);
            Counter f = frees;
            if (f != null) {
                f.increment();
            }
        }

        @Override
        public void kernelCompiled(DeviceContext c, String kernel, long nanos, @Nullable Throwable failure) {
            MeterRegistry r = registry;
            if (r != null) {
                Timer t = Timer.builder(DeviceFigure.KERNEL_COMPILATIONS.metricName()).tags(tags)
                        .tag("outcome", failure == null ? "success" : "failure")
                        .description(DeviceFigure.KERNEL_COMPILATIONS.description()).register(r);
                if (!meters.contains(t)) {
                    meters.add(t);
                }
                t.record(nanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void streamClosed(DeviceStream stream) {
            StreamMeters m = streams.get(stream);
            if (m != null) {
                retire(m); // the last-stream caches may hold it until another stream's operation: it is marked closed
            }
        }

        @Override
        public void closed(DeviceContext c) {
            // The context's close destroyed every stream still open; their meters go, the context-wide ones stay.
            for (StreamMeters m : streams.values()) {
                retire(m);
            }
        }

        @Override
        public void faulted(DeviceContext c, Throwable fault) {
            Counter f = faults;
            if (f != null) {
                f.increment();
            }
        }
    }
}
