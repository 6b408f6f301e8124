package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceException;
import dev.sluice.DeviceFunction;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.SluiceProperties;
import dev.sluice.flink.SubtaskLanes.Running;
import dev.sluice.flink.SubtaskLanes.Waiting;
import java.io.Serial;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.externalresource.ExternalResourceInfo;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.jspecify.annotations.Nullable;

/**
 * A GPU stage of a Flink job: each element runs through a {@link GpuStage} on one of the subtask's {@link GpuLane
 * lanes}, on the device assigned to the subtask, and its result completes Flink's {@link ResultFuture} from the
 * device's completion, never blocking the task thread. Use it with {@code AsyncDataStream.orderedWait} or
 * {@code unorderedWait}, with a capacity equal to {@link #lanes()}:
 *
 * <pre>{@code
 * SluiceAsyncFunction<float[], float[]> square = SluiceAsyncFunction.<float[], float[]>kernel(() -> SQUARE)
 *         .input(DType.F32, HostData::of)
 *         .output(DType.F32, (in, result, n) -> result.toArray(ValueLayout.JAVA_FLOAT))
 *         .returns(float[].class)          // the results' type, declared to Flink
 *         .lanes(4)
 *         .build();
 * AsyncDataStream.orderedWait(batches, square, 30, TimeUnit.SECONDS, square.lanes());
 * }</pre>
 *
 * <p><b>Device.</b> The subtask's device is one of the TaskManager's: those of Flink's external resource {@code gpu}
 * (their {@code index} property) when it is configured, else devices 0 to n - 1 of the backend; the
 * {@link DeviceAssignment} picks one, {@code subtaskIndex % n} by default. The backend is the one named with
 * {@link #backend(String)} or the system property {@value SluiceProperties#API}, else the first one with a device.
 * All subtasks of a TaskManager on one device share one context, closed when the last of them closes.
 *
 * <p><b>Lanes.</b> The subtask opens {@link #lanes()} lanes, each with a stream of its own, and runs one element per
 * lane at a time. With the operator's capacity equal to the lanes every element finds a free lane; an element that
 * does not (a timed-out element's lane is busy until its device work ends) waits for one, and is started on another
 * thread when one frees.
 *
 * <p><b>Failures.</b> A stage that throws, returns null, or whose future completes exceptionally or with null fails its
 * element's {@code ResultFuture} with a {@link GpuStageException} naming the element, the device and the lane; Flink
 * then fails the job or restarts it by its restart strategy. {@link #timeout} fails the element with a
 * {@link TimeoutException} naming the element, the device, the stream and the elements in flight. Every message names an
 * element the same way, {@code element 17 of subtask 2 (float[4096])}: its number among the elements the subtask was
 * given since it opened, from 0; Flink's index of the subtask, from 0; its type and size. A sticky device fault (a
 * {@link DeviceException} whose {@link DeviceException#isSticky()} holds) is fatal to the TaskManager instead, on every
 * backend but the CPU simulator: see {@link #fatalOnStickyFault(boolean)}.
 *
 * <p><b>Metrics.</b> Each subtask registers, in the group {@code sluice}, {@code device} = its device's name of the
 * operator's metric group, its elements in flight, completed and failed, their latency (a histogram, microseconds) and
 * the bytes its lanes uploaded and downloaded, and the figures of its device's shared context, every one of
 * {@link dev.sluice.DeviceFigure} under its {@link dev.sluice.DeviceFigure#groupName()} (the same values in every
 * subtask on that context); docs/flink.md lists them.
 *
 * <p><b>Configuration.</b> What the builder leaves unset (backend, lanes, device assignment, whether a sticky fault is
 * fatal, an Arrow stage's close timeout) comes from {@link SluiceOptions}: the job's global parameters, then the
 * TaskManager's Flink configuration.
 *
 * @param <IN>  the element type: a batch (an array, a {@link HostData}); batch upstream with a count or time window
 * @param <OUT> the result type
 */
public class SluiceAsyncFunction<IN, OUT> extends RichAsyncFunction<IN, OUT> {

    @Serial
    private static final long serialVersionUID = 1L;

    private static final System.Logger LOG = System.getLogger(SluiceAsyncFunction.class.getName());

    /** The name of Flink's external resource whose instances are the TaskManager's GPUs. */
    public static final String GPU_RESOURCE = "gpu";

    /** The device work of one element. */
    private final GpuStage<IN, OUT> stage;
    /** Lanes per subtask; 0: {@link SluiceOptions#LANES} of the configuration. */
    private final int lanes;
    /** Which of the TaskManager's devices a subtask uses; null: {@link SluiceOptions#DEVICE_ASSIGNMENT}. */
    private final @Nullable DeviceAssignment assignment;
    /** The backend's name, or null for the default one. */
    private final @Nullable String backend;
    /** Whether a sticky device fault fails the TaskManager; null: on every backend but the CPU simulator. */
    private final @Nullable Boolean fatalOnStickyFault;
    /** What the task thread throws for a sticky fault's fatal error: the error itself, but in tests. */
    private final FatalErrorSignal fatalErrorSignal;
    /** Flink's type of the results, where known: then the function is a {@link TypedSluiceAsyncFunction}. */
    private final @Nullable TypeInformation<OUT> producedType;

    // Per subtask, from open() on (not serialized).
    private transient SharedContexts.@Nullable Reference reference;
    private transient @Nullable String deviceName;
    /** The subtask's lanes: which are free, which element has which, who waits for one. */
    private transient @Nullable SubtaskLanes<IN, OUT> subtaskLanes;
    private transient Map<Kernel, DeviceFunction> functions;
    private transient @Nullable StageMetrics metrics;
    /** Whether {@link GpuStage#open} returned, so that close() closes the stage. */
    private transient boolean stageOpen;
    /** {@link #fatalOnStickyFault}, resolved for the subtask's backend. */
    private transient boolean stickyFaultIsFatal;
    /** {@link #lanes}, resolved against the configuration when the function opened. */
    private transient int openLanes;
    /** Flink's index of this subtask, from 0: messages name an element by it and its number. */
    private transient int subtaskIndex;
    /** Elements {@link #asyncInvoke} was given since the function opened: the next one's number. Task thread only. */
    private transient long elementsGiven;

    /**
     * A function running {@code stage} over {@code lanes} lanes per subtask, on the device {@code assignment} picks,
     * of {@code backend} (null: the system property {@value SluiceProperties#API}, else the first backend with a
     * device).
     *
     * @throws InvalidArgumentException naming {@code stage} or {@code assignment} if null, {@code lanes} if outside 1
     *                                  to 64, {@code backend} if blank
     */
    public SluiceAsyncFunction(GpuStage<IN, OUT> stage, int lanes, DeviceAssignment assignment, @Nullable String backend) {
        this(stage, checkLanes(lanes), checkAssignment(assignment), backend == null ? null : checkBackend(backend), null,
                FatalErrorSignal.THROW);
    }

    /** As the public constructor, but {@code lanes} 0 and a null {@code assignment} leave them to the configuration. */
    SluiceAsyncFunction(GpuStage<IN, OUT> stage, int lanes, @Nullable DeviceAssignment assignment, @Nullable String backend,
            @Nullable Boolean fatalOnStickyFault, FatalErrorSignal fatalErrorSignal) {
        this(stage, lanes, assignment, backend, fatalOnStickyFault, fatalErrorSignal, null);
    }

    /** With {@code producedType}, for {@link TypedSluiceAsyncFunction}, which declares it. */
    SluiceAsyncFunction(GpuStage<IN, OUT> stage, int lanes, @Nullable DeviceAssignment assignment,
            @Nullable String backend, @Nullable Boolean fatalOnStickyFault, FatalErrorSignal fatalErrorSignal,
            @Nullable TypeInformation<OUT> producedType) {
        if (stage == null) {
            throw new InvalidArgumentException("stage", "null");
        }
        if (lanes != 0) { // 0: the configuration's
            SluiceOptions.checkLanes("lanes", lanes);
        }
        this.stage = stage;
        this.lanes = lanes;
        this.assignment = assignment;
        this.backend = backend;
        this.fatalOnStickyFault = fatalOnStickyFault;
        this.fatalErrorSignal = fatalErrorSignal;
        this.producedType = producedType;
    }

    /** This function with other settings, of the same class: typed if this one is. */
    private SluiceAsyncFunction<IN, OUT> with(int lanes, @Nullable DeviceAssignment assignment, @Nullable String backend,
            @Nullable Boolean fatalOnStickyFault, FatalErrorSignal fatalErrorSignal,
            @Nullable TypeInformation<OUT> producedType) {
        return producedType == null
                ? new SluiceAsyncFunction<>(stage, lanes, assignment, backend, fatalOnStickyFault, fatalErrorSignal, null)
                : new TypedSluiceAsyncFunction<>(stage, lanes, assignment, backend, fatalOnStickyFault, fatalErrorSignal,
                        producedType);
    }

    /**
     * This function, declaring {@code type} as its results' type to Flink: {@code AsyncDataStream.orderedWait} and
     * {@code unorderedWait} then need no {@code .returns(type)} (Flink cannot see {@code OUT} through this generic class).
     *
     * @throws InvalidArgumentException naming {@code type} if null
     */
    public SluiceAsyncFunction<IN, OUT> returns(TypeInformation<OUT> type) {
        if (type == null) {
            throw new InvalidArgumentException("type", "null");
        }
        return with(lanes, assignment, backend, fatalOnStickyFault, fatalErrorSignal, type);
    }

    /**
     * This function, declaring the results' type as Flink extracts it from {@code type} ({@code float[].class},
     * a POJO's class); {@link #returns(TypeInformation)} for a generic type.
     *
     * @throws InvalidArgumentException naming {@code type} if null
     */
    public SluiceAsyncFunction<IN, OUT> returns(Class<OUT> type) {
        if (type == null) {
            throw new InvalidArgumentException("type", "null");
        }
        return returns(TypeInformation.of(type));
    }

    private static int checkLanes(int lanes) {
        return SluiceOptions.checkLanes("lanes", lanes);
    }

    private static String checkBackend(@Nullable String backend) {
        if (backend == null || backend.isBlank()) {
            throw new InvalidArgumentException("backend", "value '" + backend + "' names no backend");
        }
        return backend;
    }

    private static DeviceAssignment checkAssignment(@Nullable DeviceAssignment assignment) {
        if (assignment == null) {
            throw new InvalidArgumentException("assignment", "null");
        }
        return assignment;
    }

    /**
     * A function running {@code stage} over {@code lanes} lanes per subtask, devices assigned as
     * {@link SluiceOptions#DEVICE_ASSIGNMENT} says (round robin by default).
     *
     * @throws InvalidArgumentException naming {@code stage} if null, {@code lanes} if outside 1 to 64
     */
    public static <I, O> SluiceAsyncFunction<I, O> of(GpuStage<I, O> stage, int lanes) {
        return new SluiceAsyncFunction<>(stage, checkLanes(lanes), null, null, null, FatalErrorSignal.THROW);
    }

    /**
     * A function running {@code stage} over the lanes per subtask that {@link SluiceOptions#LANES} gives (4 unless the
     * job or the cluster sets it), devices assigned as {@link SluiceOptions#DEVICE_ASSIGNMENT} says.
     *
     * @throws InvalidArgumentException naming {@code stage} if null
     */
    public static <I, O> SluiceAsyncFunction<I, O> of(GpuStage<I, O> stage) {
        return new SluiceAsyncFunction<>(stage, 0, null, null, null, FatalErrorSignal.THROW);
    }

    /**
     * This function with subtasks placed on devices by {@code assignment} instead.
     *
     * @throws InvalidArgumentException naming {@code assignment} if null
     */
    public SluiceAsyncFunction<IN, OUT> assignment(DeviceAssignment assignment) {
        return with(lanes, checkAssignment(assignment), backend, fatalOnStickyFault, fatalErrorSignal, producedType);
    }

    /**
     * This function on backend {@code backend} ("cuda", "hip", "cpu") instead of the default one.
     *
     * @throws InvalidArgumentException naming {@code backend} if null or blank
     */
    public SluiceAsyncFunction<IN, OUT> backend(String backend) {
        return with(lanes, assignment, checkBackend(backend), fatalOnStickyFault, fatalErrorSignal, producedType);
    }

    /**
     * This function with a sticky device fault fatal to the TaskManager ({@code true}) or failing its elements only
     * ({@code false}). By default it is fatal on every backend but the CPU simulator, whose faults stay inside their
     * context.
     *
     * <p>A sticky fault (a {@link DeviceException} whose {@link DeviceException#isSticky()} holds, among the causes of
     * an element's failure) leaves the context unusable, and on CUDA every context of the process: a restarted task
     * would fail to open its device again, restart after restart. When fatal, the element's result is a
     * {@link StickyDeviceFaultError} thrown on Flink's task thread, which Flink holds fatal to the JVM: the task halts
     * the TaskManager's process at once (no clean shutdown), its deployment starts a new one, and the job restarts by its
     * restart strategy on the slots it finds. Run one TaskManager per GPU, so that the other GPUs' work goes on. Other
     * failures, a non-sticky {@link DeviceException} among them, fail their element as always.
     */
    public SluiceAsyncFunction<IN, OUT> fatalOnStickyFault(boolean fatal) {
        return with(lanes, assignment, backend, fatal, fatalErrorSignal, producedType);
    }

    /**
     * This function with {@code signal} deciding what the task thread throws for a sticky fault's fatal error: a test
     * on an embedded cluster cannot let the real error through, which halts the JVM.
     */
    SluiceAsyncFunction<IN, OUT> fatalErrorSignal(FatalErrorSignal signal) {
        return with(lanes, assignment, backend, fatalOnStickyFault, signal, producedType);
    }

    /** Whether a sticky fault is fatal on {@code backend} unless told otherwise: everywhere but the CPU simulator. */
    static boolean stickyFaultIsFatalByDefault(String backend) {
        return !"cpu".equalsIgnoreCase(backend);
    }

    /** What the task thread throws for a sticky fault's fatal error. */
    @FunctionalInterface
    interface FatalErrorSignal extends Serializable {
        /** The error itself: Flink halts the TaskManager. */
        FatalErrorSignal THROW = error -> error;

        /** What the task thread throws for {@code error}: an {@link Error} or an {@link Exception}. */
        Throwable onTaskThread(StickyDeviceFaultError error);
    }

    /**
     * The lanes per subtask: the elements a subtask runs on its device at once; pass it as the operator's capacity. A
     * function built without lanes gives {@link SluiceOptions#LANES}' default here, on the client, and opens with the
     * lanes its TaskManager's configuration or the job's parameters give; where those differ from this, elements wait
     * for a lane or lanes stay idle.
     */
    public int lanes() {
        return lanes > 0 ? lanes : SluiceOptions.LANES.defaultValue();
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void open(OpenContext openContext) throws Exception {
        RuntimeContext rc = getRuntimeContext();
        int subtask = rc.getTaskInfo().getIndexOfThisSubtask();
        // What the builder left unset comes from the job's parameters, then the TaskManager's configuration.
        Configuration settings = SluiceOptions.merged(rc.getGlobalJobParameters());
        int lanes = this.lanes > 0 ? this.lanes : SluiceOptions.lanes(settings);
        DeviceAssignment assignment = this.assignment != null ? this.assignment : SluiceOptions.assignment(settings);
        Boolean fatalOnStickyFault = this.fatalOnStickyFault != null ? this.fatalOnStickyFault
                : SluiceOptions.fatalOnStickyFault(settings);
        String api = resolveBackend(settings);
        List<Integer> devices = new ArrayList<>();
        String from = devicesOf(rc.getExternalResourceInfos(GPU_RESOURCE), devices);
        if (devices.isEmpty()) {
            int n = DeviceContext.deviceCount(api);
            for (int i = 0; i < n; i++) {
                devices.add(i);
            }
            from = "the " + api + " backend's device count";
        }
        if (devices.isEmpty()) {
            throw new IllegalStateException("sluice-flink: no device for " + rc.getTaskInfo().getTaskNameWithSubtasks()
                    + ": the " + api + " backend has none and Flink's external resource '" + GPU_RESOURCE
                    + "' is not configured");
        }
        int position = assignment.device(subtask, devices.size());
        if (position < 0 || position >= devices.size()) {
            throw new InvalidArgumentException("assignment", "gave position " + position + " for subtask " + subtask
                    + " but this TaskManager has " + devices.size() + " device(s), positions 0 to " + (devices.size() - 1));
        }
        int device = devices.get(position);
        stickyFaultIsFatal = fatalOnStickyFault != null ? fatalOnStickyFault : stickyFaultIsFatalByDefault(api);

        ClassLoader owner = rc.getUserCodeClassLoader();
        // The backstop: a task that ends without close() must not keep a context (and its pinned memory) for ever.
        rc.registerUserCodeClassLoaderReleaseHookIfAbsent("sluice-flink-shared-contexts",
                () -> SharedContexts.releaseAll(owner));
        SubtaskLanes<IN, OUT> sl = new SubtaskLanes<>();
        subtaskLanes = sl;
        openLanes = lanes;
        subtaskIndex = subtask;
        elementsGiven = 0;
        functions = Collections.synchronizedMap(new IdentityHashMap<>());
        SharedContexts.Reference l = SharedContexts.acquire(api, device, owner);
        reference = l;
        DeviceContext context = l.context();
        deviceName = api + ":" + device;
        try {
            if (stage instanceof ConfiguredStage configured) {
                configured.configure(settings); // a setting its builder left unset: the job's, then the cluster's
            }
            stage.open(context);
            stageOpen = true;
            List<Kernel> kernels = stage.kernels();
            // Checked here, so that the failure says what the stage gave rather than where it was used; by a stream, as
            // List.of's contains(null) throws.
            if (kernels == null || kernels.stream().anyMatch(Objects::isNull)) {
                throw new InvalidArgumentException("kernels", "the stage's kernels() gave " + (kernels == null ? "null"
                        : kernels) + "; List.of() for none");
            }
            for (Kernel k : kernels) {
                function(k);
            }
            sl.open(context, l.staging(), lanes, this::function);
            metrics = new StageMetrics(rc.getMetricGroup(), deviceName, this::inFlightCount, context, l.metrics(),
                    sl.lanes().stream().map(GpuLane::stream).toList());
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        LOG.log(System.Logger.Level.INFO, "sluice-flink: " + rc.getTaskInfo().getTaskNameWithSubtasks() + " (subtask "
                + subtask + ") on device " + deviceName + ", position " + position + " of " + devices + " from " + from
                + ", " + lanes + " lane(s), a sticky device fault " + (stickyFaultIsFatal ? "fails the TaskManager"
                : "fails its elements"));
    }

    /** Reads the devices of Flink's external resource {@code gpu} into {@code into}; a description of where from. */
    private static String devicesOf(Set<ExternalResourceInfo> gpus, List<Integer> into) {
        TreeSet<Integer> ids = new TreeSet<>();
        for (ExternalResourceInfo info : gpus) {
            String index = info.getProperty("index").orElseThrow(() -> new IllegalStateException(
                    "sluice-flink: an instance of Flink's external resource '" + GPU_RESOURCE + "' has no 'index' property"
                            + " (keys " + info.getKeys() + ")"));
            try {
                ids.add(Integer.parseInt(index.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalStateException("sluice-flink: Flink's external resource '" + GPU_RESOURCE
                        + "' has index '" + index + "', not a device number", e);
            }
        }
        into.addAll(ids);
        return "Flink's external resource '" + GPU_RESOURCE + "'";
    }

    private String resolveBackend(Configuration settings) {
        if (backend != null) {
            return backend;
        }
        Optional<String> configured = SluiceOptions.backend(settings);
        if (configured.isPresent()) {
            return configured.get();
        }
        String named = System.getProperty(SluiceProperties.API);
        if (named == null || named.isBlank()) {
            named = System.getenv(SluiceProperties.API_ENVIRONMENT);
        }
        if (named != null && !named.isBlank()) {
            return named.trim();
        }
        for (String name : DeviceContext.backendNames()) {
            if (DeviceContext.deviceCount(name) > 0) {
                return name;
            }
        }
        throw new IllegalStateException("sluice-flink: no backend has a device:\n" + DeviceContext.detect());
    }

    private DeviceFunction function(Kernel kernel) {
        DeviceContext context = Objects.requireNonNull(reference, "not open").context();
        synchronized (functions) {
            DeviceFunction f = functions.get(kernel);
            if (f == null) {
                SubtaskLanes<IN, OUT> sl = subtaskLanes;
                if (sl == null || sl.isClosed()) { // a stage started just before close(): nothing would close it
                    throw new dev.sluice.ClosedResourceException("sluice-flink function on device " + deviceName);
                }
                f = context.compile(kernel);
                functions.put(kernel, f);
            }
            return f;
        }
    }

    /**
     * Closes the lanes (each stream once its work has finished), the stage ({@link GpuStage#close()}), the compiled
     * functions and this subtask's reference to the shared context, which closes when no other subtask of the
     * TaskManager uses it. Flink calls it when the task ends, finished, failed or cancelled; elements still waiting for
     * a lane are dropped.
     */
    @Override
    public void close() throws Exception {
        SubtaskLanes<IN, OUT> sl = subtaskLanes;
        List<GpuLane> toClose = sl == null ? List.of() : sl.close(); // close() without open(): nothing to close
        if (toClose == null) {
            return; // closed already
        }
        RuntimeException failure = null;
        for (GpuLane lane : toClose) {
            try {
                lane.close();
            } catch (RuntimeException e) {
                failure = addTo(failure, e);
            }
        }
        StageMetrics m = metrics;
        if (m != null) {
            m.close(); // after the lanes, whose close waited for their streams' last copies
        }
        if (stageOpen) {
            stageOpen = false;
            try {
                stage.close(); // after the lanes, so no element's device work uses what it closes
            } catch (RuntimeException e) {
                failure = addTo(failure, e);
            }
        }
        if (functions != null) {
            synchronized (functions) {
                for (DeviceFunction f : functions.values()) {
                    try {
                        f.close();
                    } catch (RuntimeException e) {
                        failure = addTo(failure, e);
                    }
                }
                functions.clear();
            }
        }
        SharedContexts.Reference l = reference;
        reference = null;
        if (l != null) {
            try {
                l.close();
            } catch (RuntimeException e) {
                failure = addTo(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static RuntimeException addTo(@Nullable RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    // ---------------------------------------------------------------- elements

    /**
     * Starts {@code input} on a free lane, or queues it for the next lane that frees; never blocks. Numbers it (from 0,
     * in the order the subtask is given its elements), so that every message about it says which element it was; an
     * element Flink's retry strategy gives again is numbered again. A null element fails its {@code resultFuture} as
     * any element the stage refuses does.
     *
     * @throws InvalidArgumentException naming {@code resultFuture} if null; nothing is numbered or started then
     * @throws IllegalStateException    before {@link #open}
     */
    @Override
    public void asyncInvoke(IN input, ResultFuture<OUT> resultFuture) {
        long arrived = System.nanoTime();
        // Refused before the element is numbered or takes a lane: no result could reach Flink.
        SubtaskLanes<IN, OUT> sl = lanesFor("asyncInvoke", resultFuture);
        long number = elementsGiven++;
        Running running = sl.admit(input, resultFuture, arrived, number,
                () -> {
                    failed(null);
                    failOnTaskThread(resultFuture, new GpuStageException("sluice-flink: " + describe(number, input)
                            + " arrived after the function closed on device " + deviceName));
                });
        if (running != null) {
            start(running, input, resultFuture);
        }
    }

    /**
     * The subtask's lanes, for {@code call} with {@code resultFuture}.
     *
     * @throws InvalidArgumentException naming {@code resultFuture} if null
     * @throws IllegalStateException    before {@link #open}, which Flink calls first
     */
    private SubtaskLanes<IN, OUT> lanesFor(String call, @Nullable ResultFuture<OUT> resultFuture) {
        if (resultFuture == null) {
            throw new InvalidArgumentException("resultFuture", "null: " + call + " completes the element through it");
        }
        SubtaskLanes<IN, OUT> sl = subtaskLanes;
        if (sl == null) {
            throw new IllegalStateException("sluice-flink: " + call + " before open(): the function has no lanes until"
                    + " Flink opens it");
        }
        return sl;
    }

    /** Names element {@code number} of this subtask in messages: which it was, its type and size. */
    private String describe(long number, @Nullable Object input) {
        return Elements.describe(subtaskIndex, number, input);
    }

    /** Where an element on {@code lane} ran, for messages. */
    private String on(GpuLane lane) {
        return " on device " + deviceName + ", lane " + lane.index();
    }

    private void start(Running running, IN input, ResultFuture<OUT> resultFuture) {
        GpuLane lane = running.lane();
        CompletableFuture<OUT> result;
        try {
            result = stage.apply(lane, input);
        } catch (Throwable t) {
            failed(running);
            laneFreeAfterItsWork(lane, resultFuture);
            fail(resultFuture, lane, running, input, new GpuStageException("sluice-flink: the stage failed on "
                    + describe(running.number(), input) + on(lane) + ": " + t, t));
            if (t instanceof VirtualMachineError e) {
                throw e;
            }
            return;
        }
        if (result == null) {
            failed(running);
            laneFreeAfterItsWork(lane, resultFuture);
            failOnTaskThread(resultFuture, new GpuStageException("sluice-flink: the stage returned null instead of a"
                    + " future for " + describe(running.number(), input) + on(lane)));
            return;
        }
        result.whenComplete((out, failure) -> {
            // Counted before Flink has the result, so that a finished job's metrics hold all of its elements.
            if (failure != null || out == null) {
                failed(running);
            } else if (running.counted().compareAndSet(false, true)) {
                StageMetrics m = metrics;
                if (m != null) {
                    m.completed(System.nanoTime() - running.arrivedNanos());
                }
            }
            // The lane first, so that Flink, once it has the result and asks for the next element, finds it free; after
            // a failure, once what the stage enqueued before it failed has run.
            if (failure != null) {
                laneFreeAfterItsWork(lane, resultFuture);
            } else {
                laneFree(lane, resultFuture);
            }
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                fail(resultFuture, lane, running, input, new GpuStageException("sluice-flink: "
                        + describe(running.number(), input) + " failed" + on(lane) + ": " + cause, cause));
            } else if (out == null) {
                failOnTaskThread(resultFuture, new GpuStageException("sluice-flink: the stage's future completed"
                        + " with null for " + describe(running.number(), input) + on(lane)));
            } else {
                resultFuture.complete(Collections.singleton(out));
            }
        });
    }

    /**
     * Fails {@code input}'s result with {@code failure}; or, for a sticky device fault that is fatal here, completes it
     * with a result that throws a {@link StickyDeviceFaultError} when Flink takes it, on the task thread.
     */
    private void fail(ResultFuture<OUT> resultFuture, GpuLane lane, Running running, IN input,
            GpuStageException failure) {
        DeviceException sticky = StickyDeviceFaultError.stickyCause(failure);
        if (sticky == null || !stickyFaultIsFatal) {
            failOnTaskThread(resultFuture, failure);
            return;
        }
        StickyDeviceFaultError fatal = new StickyDeviceFaultError("sluice-flink: a sticky device fault" + on(lane)
                + ", at " + describe(running.number(), input) + ", leaves this process's device state unusable: failing"
                + " the TaskManager so that a new process takes its place: " + sticky, failure);
        LOG.log(System.Logger.Level.ERROR, fatal.getMessage());
        // complete(CollectionSupplier) runs the supplier in the task's mailbox, on the task thread: Flink's Task sees an
        // error fatal to the JVM there, and halts the process. completeExceptionally would wrap it into an Exception.
        FatalErrorSignal signal = fatalErrorSignal;
        resultFuture.complete(() -> {
            Throwable thrown = signal.onTaskThread(fatal);
            if (thrown instanceof Error e) {
                throw e;
            }
            throw (Exception) thrown;
        });
    }

    /**
     * Fails an element on the task thread, with the element still in the async operator's queue (and so in a checkpoint
     * taken before): {@code completeExceptionally} would drop it from the queue at once and fail the task later, from
     * another thread, and a checkpoint taken in between, restored, would lose it.
     */
    private static <T> void failOnTaskThread(ResultFuture<T> resultFuture, Exception failure) {
        resultFuture.complete(() -> {
            throw failure;
        });
    }

    /**
     * {@link #laneFree} once the work the stage enqueued on {@code lane} before it failed has run: a download it left
     * queued into the lane's staging would otherwise overwrite the next element's input there.
     */
    private void laneFreeAfterItsWork(GpuLane lane, ResultFuture<OUT> resultFuture) {
        CompletableFuture<Void> drained;
        try {
            drained = lane.stream().enqueueMarker();
        } catch (RuntimeException e) {
            // The stream refuses work (closed, or its device faulted): nothing more of it runs.
            laneFree(lane, resultFuture);
            return;
        }
        drained.whenComplete((v, e) -> laneFree(lane, resultFuture));
    }

    /**
     * Gives {@code lane} back after the element whose result is {@code resultFuture}, or to the next waiting element
     * (started on another thread).
     */
    private void laneFree(GpuLane lane, ResultFuture<OUT> resultFuture) {
        SubtaskLanes.Handoff<IN, OUT> handoff = Objects.requireNonNull(subtaskLanes, "not open").free(lane,
                resultFuture);
        if (handoff == null) {
            return;
        }
        Waiting<IN, OUT> next = handoff.next();
        Running running = handoff.running();
        // Not on this thread, which may be the device's completion thread: the stage enqueues, and may compile.
        Thread.ofVirtual().name("sluice-flink-start").start(() -> {
            try {
                start(running, next.element(), next.result());
            } catch (RejectedExecutionException taskEnded) {
                // The task ended while the element waited (its failure frees lanes as it goes): its mailbox takes no
                // result, and nothing waits for one.
                LOG.log(System.Logger.Level.DEBUG, "sluice-flink: " + describe(next.number(), next.element())
                        + on(running.lane()) + " started as its task ended; its result is dropped");
            }
        });
    }

    /** Counts a failed element, unless its outcome was counted already ({@code running} null: it never had a lane). */
    private void failed(@Nullable Running running) {
        StageMetrics m = metrics;
        if (m != null && (running == null || running.counted().compareAndSet(false, true))) {
            m.failed();
        }
    }

    /**
     * Fails {@code input} with a {@link TimeoutException} naming the element, the device, the stream its lane uses (or
     * that it was still waiting for a lane) and the elements in flight. Its lane stays busy until its device work ends.
     *
     * @throws InvalidArgumentException naming {@code resultFuture} if null
     * @throws IllegalStateException    before {@link #open}
     */
    @Override
    public void timeout(IN input, ResultFuture<OUT> resultFuture) {
        SubtaskLanes.Lookup found = lanesFor("timeout", resultFuture).timedOut(resultFuture);
        Running r = found.running();
        int running = found.inFlight();
        boolean wasWaiting = found.wasWaiting();
        String where;
        if (r != null) {
            GpuLane lane = r.lane();
            where = "on device " + deviceName + ", stream " + lane.stream() + " (lane " + lane.index() + ")";
        } else {
            where = "waiting for a lane of device " + deviceName;
        }
        if (r != null || wasWaiting) { // neither: its result raced the timer and was counted
            failed(r);
        }
        failOnTaskThread(resultFuture, new TimeoutException("sluice-flink: " + describe(found.number(), input)
                + " timed out " + where + ", with " + running + " element(s) in flight over " + openLanes + " lane(s)"));
    }

    private int inFlightCount() {
        SubtaskLanes<IN, OUT> sl = subtaskLanes;
        return sl == null ? 0 : sl.inFlight();
    }

    // ---------------------------------------------------------------- the common case: one kernel

    /**
     * A builder of the common stage: upload the element's host data, launch {@code kernel}, download the output and make
     * the result of it. The kernel's arguments are {@code (in, out, long n)} (the device input and output buffers and the
     * input's element count); with several inputs, outputs and scalars ({@link KernelStageBuilder#input},
     * {@link KernelStageBuilder#outputs}, {@link KernelStageBuilder#scalar}) {@code (inputs..., outputs..., long n, scalars...)}, n being the first input's count.
     *
     * <pre>{@code
     * SluiceAsyncFunction<float[], float[]> f = SluiceAsyncFunction.<float[], float[]>kernel(() -> SAXPY)
     *         .input(DType.F32, HostData::of)                              // x
     *         .output(DType.F32, (in, y, n) -> y.toArray(JAVA_FLOAT))      // y
     *         .scalar((in, n) -> 2.5f)                                     // a, after n
     *         .returns(float[].class)                                      // Flink's type of OUT: no .returns() later
     *         .build();
     * }</pre>
     *
     * @param kernel gives the kernel (called once per subtask; a {@code static final} field's, typically)
     */
    public static <I, O> KernelStageBuilder<I, O> kernel(KernelSource kernel) {
        return new KernelStageBuilder<>(kernel);
    }
}
