package dev.sluice;

/**
 * Every system property Sluice reads, with its default and meaning: the one place they are named. Set them with
 * {@code -Dname=value} on the command line or {@link System#setProperty} before the moment each says it is read;
 * {@code docs/guide.md} ("System properties") lists the same in a table, and CONTRIBUTING.md those of
 * {@link Measurement}. The backend modules read the ones under their name ({@code sluice.cuda.*}, {@code sluice.hip.*},
 * {@code sluice.cpu.*}) through these constants too.
 *
 * <p>The settings here are for users. Those in {@link Measurement} exist to measure and test Sluice itself: they are
 * not part of the API, and may change or go without notice.
 */
public final class SluiceProperties {

    private SluiceProperties() {
    }

    // ---------------------------------------------------------------- choosing a backend

    /**
     * {@value}: the name of the backend {@link DeviceContext#open()} opens ("cuda", "hip", "cpu" or the name of a
     * backend from another jar); read at every {@code open()}. Unset or blank: {@link #API_ENVIRONMENT}, and without
     * that the first backend with a device in {@link DeviceContext#backendNames()}'s order.
     */
    public static final String API = "sluice.api";

    /** {@value}: the environment variable {@link DeviceContext#open()} reads where {@link #API} is unset or blank. */
    public static final String API_ENVIRONMENT = "SLUICE_API";

    // ---------------------------------------------------------------- the public layer

    /**
     * {@value}: what leak reports record: {@code off}, {@code sampled} (the allocation site of one allocation in 64;
     * the default) or {@code paranoid} (every allocation's site). Read once, when the first resource is tracked; another
     * value logs a warning and means {@code sampled}.
     */
    public static final String LEAK_DETECTION = "sluice.leakDetection";

    /**
     * {@value}: the {@link ContextOptions#markerBatch()} of {@link ContextOptions#defaults()}, 1 to
     * {@value ContextOptions#MAX_MARKER_BATCH}; unset: {@value ContextOptions#DEFAULT_MARKER_BATCH}. Read at every
     * {@code defaults()}, so it changes only options built from the defaults: an explicit
     * {@link ContextOptions#withMarkerBatch(int)} (or the record's constructor) always wins, made after or before.
     * A value that is not a number in that range makes {@code defaults()} throw, naming the property.
     */
    public static final String MARKER_BATCH = "sluice.markers.batch";

    // ---------------------------------------------------------------- the CPU simulator (sluice-cpu)

    /** {@value}: how many devices the CPU simulator has; 1 by default. Read at every probe and open. */
    public static final String CPU_DEVICES = "sluice.cpu.devices";

    /** {@value}: bytes of device memory of each simulated device; 4 GiB by default. Read at every probe and open. */
    public static final String CPU_MEMORY_BYTES = "sluice.cpu.memoryBytes";

    // ---------------------------------------------------------------- CUDA (sluice-cuda)

    /**
     * {@value}: a file name or path of the CUDA driver library, tried before {@code libcuda.so.1}, {@code libcuda.so}
     * and the usual folders. Read when the backend is first probed.
     */
    public static final String CUDA_DRIVER = "sluice.cuda.driver";

    /**
     * {@value}: a file name or path of NVRTC, tried before the environment variable {@code SLUICE_NVRTC} and the
     * usual names and folders. Read when a {@code cudaSource} kernel is first compiled.
     */
    public static final String NVRTC = "sluice.nvrtc";

    /**
     * {@value}: {@code true} keeps the driver's lazy module loading. By default the backend asks for eager loading
     * ({@code CUDA_MODULE_LOADING=EAGER}, unless that variable is set), since a lazy load may wait for a stream held at a
     * host gate. Read when the backend is first probed.
     */
    public static final String CUDA_LAZY_LOADING = "sluice.cuda.lazyLoading";

    /**
     * {@value}: {@code true} allocates device memory with {@code cuMemAlloc} even where the device has stream-ordered
     * memory pools ({@code cuMemAllocAsync}, the default there). Read when a context opens.
     */
    public static final String CUDA_NO_MEMORY_POOLS = "sluice.cuda.noMemoryPools";

    // ---------------------------------------------------------------- HIP (sluice-hip)

    /**
     * {@value}: a file name or path of the HIP runtime, tried alone when set; otherwise {@code libamdhip64.so*} by name,
     * under {@code $ROCM_PATH/lib} and {@code /opt/rocm/lib}. Read when the backend is first probed.
     */
    public static final String HIP_LIBRARY = "sluice.hip.library";

    /**
     * {@value}: a file name or path of hiprtc, tried alone when set; otherwise {@code libhiprtc.so*} as for
     * {@link #HIP_LIBRARY}, then the HIP runtime itself. Read when the backend is first probed.
     */
    public static final String HIPRTC_LIBRARY = "sluice.hiprtc.library";

    // ---------------------------------------------------------------- compiled-kernel cache (CUDA and HIP)

    /**
     * {@value}: the folder of the compiled-kernel cache ({@code cuda/} and {@code hip/} beneath it);
     * {@code ~/.cache/sluice} by default. Read at every compilation.
     */
    public static final String CACHE_DIR = "sluice.cache.dir";

    /** {@value}: {@code true} compiles every kernel anew and stores nothing. Read at every compilation. */
    public static final String CACHE_DISABLED = "sluice.cache.disabled";

    // ---------------------------------------------------------------- the reactive module (sluice-reactive)

    /**
     * {@value}: {@code false} leaves the completion threads out of the threads that Sluice's BlockHound integration
     * declares non-blocking; {@code true} by default. Read when BlockHound installs the integration.
     */
    public static final String BLOCKHOUND_COMPLETION_THREADS = "sluice.blockhound.completionThreads";

    /**
     * {@value}: the size in bytes from which a lane (of a {@code GpuPipeline} or a Flink function) copies a chunk into
     * its staging buffer, and a result out of it, on the lanes' copy threads (half the cores, at most eight), a large one split over
     * several, instead of on the thread that enqueues; 1048576 (1 MiB) by default, {@code 0} for every chunk. Read when a
     * pipeline or a lane is made.
     */
    public static final String PIPELINE_PARALLEL_COPY_BYTES = "sluice.pipeline.parallelCopyBytes";

    /**
     * Knobs for measuring and testing Sluice itself, not part of the API: each sets a constant that was chosen by
     * measurement (the default says what was chosen), so that a benchmark can compare against another value or a test
     * can make a timing deterministic. They may change or go without notice.
     */
    public static final class Measurement {

        private Measurement() {
        }

        /**
         * {@value}: the least nanoseconds between two rounds of polls of the completion thread while markers are
         * pending and nothing completed; 1000 by default, 0 polls back to back. Read when the API classes load.
         */
        public static final String ENGINE_POLL_GAP_NANOS = "sluice.engine.pollGapNanos";

        /**
         * {@value}: the least nanoseconds between two rounds of polls while the caller streams work; 4000 by default.
         * Read when the API classes load.
         */
        public static final String ENGINE_STREAMING_POLL_GAP_NANOS = "sluice.engine.streamingPollGapNanos";

        /**
         * {@value}: how many nanoseconds a marker group must have stopped growing before the completion thread seals
         * it; 2000 by default. Read when a stream is created.
         */
        public static final String MARKER_BATCH_IDLE_NANOS = "sluice.markers.batchIdleNanos";

        /**
         * {@value}: how many milliseconds {@link DeviceContext#close()} waits for futures once the device has finished
         * their work; 10000 by default. Read when a context opens.
         */
        public static final String CLOSE_FUTURES_MILLIS = "sluice.close.futuresMillis";

        /**
         * {@value}: on CUDA, how many nanoseconds a marker stays not done before the completion thread asks the driver
         * whether the context faulted, and how often it asks again; 100000 by default. Read when the CUDA backend's
         * classes load.
         */
        public static final String CUDA_FAULT_CHECK_NANOS = "sluice.cuda.faultCheckNanos";

        /**
         * {@value}: on CUDA, {@code kernel} makes host gates spin in a one-thread kernel polling a mapped flag instead of
         * waiting in {@code cuStreamWaitValue32} (the default, unless the driver refuses stream memory operations).
         * Read when a context opens.
         */
        public static final String CUDA_GATES = "sluice.cuda.gates";

        /**
         * {@value}: on CUDA and HIP, {@code events} makes the completion thread learn completion by querying each
         * marker's event through the driver instead of reading the stream's device-written counter (the default where
         * the driver writes stream memory, see {@code dev.sluice.spi.support.CompletionCounters}); {@code record}
         * enqueues every marker's counter write when the marker is recorded, {@code awaited} when a thread is about to
         * wait for it (else at its first poll), {@code poll} at its first poll that finds it not done, where by default a
         * marker recorded on an idle stream is armed when recorded and any other at its first poll
         * ({@code dev.sluice.spi.support.StreamCounter}). Read when a context opens.
         */
        public static final String COMPLETION = "sluice.completion";

        /**
         * {@value}: {@code true} times every CUDA driver call the backend makes through {@code java.lang.foreign} (two
         * clock reads around each) and prints, when the JVM exits, each function's calls, total time and time per call
         * to standard error: where the host's time goes inside the downcalls, which a sampling profiler cannot see.
         * Read when the CUDA backend's classes load; off by default.
         */
        public static final String CUDA_TIME_DOWNCALLS = "sluice.cuda.timeDowncalls";

        /**
         * {@value}: how many threads run the lanes' host copies to and from pinned staging (see
         * {@link SluiceProperties#PIPELINE_PARALLEL_COPY_BYTES}), 1 to 256; half the cores, at least one and at most
         * eight, by default. Read when the reactive module's copy threads start.
         */
        public static final String PIPELINE_COPY_THREADS = "sluice.pipeline.copyThreads";

        /**
         * {@value}: the least bytes one copy thread takes of a large host copy split over several, at least 64;
         * 1048576 (1 MiB) by default. Read when the reactive module's copy threads start.
         */
        public static final String PIPELINE_COPY_PIECE_BYTES = "sluice.pipeline.copyPieceBytes";
    }
}
