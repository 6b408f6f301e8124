package dev.sluice.benchmarks.cuda;

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
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.WaitStrategy;
import dev.sluice.benchmarks.Samples;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;

/**
 * The CUDA backend's per-call targets, measured the way {@code benchmarks/native/sluice_native_bench.c}
 * measures its C yardsticks, and printed as ratios to the C figures of the same run:
 *
 * <ol>
 * <li>{@code launch5}: host time per {@code enqueueLaunch} of the empty 5-argument kernel, future included,
 * 100,000 launches on one stream never drained, median of 5 repeats after a warm-up; also raw launches of the
 * same kernel from Java through JCuda and through {@code java.lang.foreign} (what the backend's launch path
 * was chosen from);
 * <li>{@code latency}: idle stream, enqueue the write-one kernel, spin until its future is done; 10,000 samples
 * after 2,000 warm-ups; p50, p99, min; under the PARK (default) and SPIN wait strategies;
 * <li>{@code tiny}: 100,000 write-one kernels, each with its future, from the first launch until the last
 * future is done; median of 5;
 * <li>{@code bandwidth}: pinned {@code HostBuffer} ↔ {@code DeviceBuffer} at 64, 256, 512 MiB, timed by timing
 * events around the copy (as C does) and by the host from enqueue to future done; median of 5;
 * <li>{@code blocking}: launch, latency and tiny on a context with the BLOCKING wait strategy.
 * </ol>
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... dev.sluice.benchmarks.cuda.CudaBench [--native native.txt] [--quick]
 *     [--only launch,latency,tiny,bandwidth,blocking]</pre>
 *
 * Output: {@code key=value} lines, then a table of targets with the C figure, the Sluice figure and the ratio.
 */
public final class CudaBench {

    private static final String SOURCE = """
            extern "C" __global__ void empty0() {}
            extern "C" __global__ void empty5(float *a, long long n, float s, int k, float *b) {}
            extern "C" __global__ void write_one(int *p, int v) {
                if (blockIdx.x == 0 && threadIdx.x == 0) *p = v;
            }
            """;

    static final Kernel EMPTY5 = Kernel.named("empty5")
            .params(KernelParam.pointer("a", DType.F32), KernelParam.scalar("n", DType.I64), KernelParam.scalar("s", DType.F32),
                    KernelParam.scalar("k", DType.I32), KernelParam.pointer("b", DType.F32))
            .cudaSource(SOURCE).build();
    static final Kernel WRITE_ONE = Kernel.named("write_one")
            .params(KernelParam.pointer("p", DType.I32), KernelParam.scalar("v", DType.I32))
            .cudaSource(SOURCE).build();

    private final Map<String, Double> results = new LinkedHashMap<>();
    private final boolean quick;

    private CudaBench(boolean quick) {
        this.quick = quick;
    }

    public static void main(String[] args) throws Throwable {
        // No abbreviations: a mistyped option is refused rather than taken for another.
        OptionParser parser = new OptionParser(false);
        OptionSpec<String> nativeOption = parser.accepts("native", "native.txt of benchmarks/native, for the ratios to C")
                .withRequiredArg();
        OptionSpec<Void> quickOption = parser.accepts("quick", "fewer repeats");
        OptionSpec<String> onlyOption = parser.accepts("only", "launch, latency, tiny, bandwidth, blocking, counters")
                .withRequiredArg().withValuesSeparatedBy(',');
        OptionSet set;
        try {
            set = parser.parse(args);
            if (!set.nonOptionArguments().isEmpty()) {
                throw new IllegalArgumentException("unknown argument " + set.nonOptionArguments().getFirst());
            }
        } catch (OptionException | IllegalArgumentException e) {
            System.err.println("CudaBench: " + e.getMessage());
            parser.printHelpOn(System.err);
            System.exit(2);
            return;
        }
        Path nativeFile = set.has(nativeOption) ? Path.of(set.valueOf(nativeOption)) : null;
        boolean quick = set.has(quickOption);
        List<String> only = set.valuesOf(onlyOption);
        CudaBench b = new CudaBench(quick);
        try (DeviceContext ctx = DeviceContext.open(Api.CUDA, 0)) {
            System.out.println("device=" + ctx.name());
            System.out.println("driver=" + ctx.driverVersion());
            System.out.println("java=" + System.getProperty("java.version"));
            if (only.isEmpty() || only.contains("launch")) {
                b.launch(ctx, "");
                b.rawLaunches(ctx);
            }
            if (only.isEmpty() || only.contains("latency")) {
                b.latency(ctx, "park");
                try (DeviceContext spin = DeviceContext.open(Api.CUDA, 0, ContextOptions.defaults().withWaitStrategy(WaitStrategy.SPIN))) {
                    b.latency(spin, "spin");
                }
            }
            if (only.isEmpty() || only.contains("tiny")) {
                b.tiny(ctx, "");
            }
            if (only.isEmpty() || only.contains("bandwidth")) {
                b.bandwidth(ctx);
            }
        }
        if (only.isEmpty() || only.contains("blocking")) {
            // The same under the BLOCKING wait strategy: the completion thread sleeps in cuEventSynchronize (blocking-sync
            // events) instead of polling, so it makes no driver call while the caller launches, at the price of a
            // wake-up per completion it sleeps for.
            try (DeviceContext bl = DeviceContext.open(Api.CUDA, 0, ContextOptions.defaults().withPrimaryContext(false)
                    .withWaitStrategy(WaitStrategy.BLOCKING))) {
                b.launch(bl, "_blocking");
                b.latency(bl, "blocking");
                b.tiny(bl, "_blocking");
            }
        }
        b.report(nativeFile);
    }

    private void result(String name, double value) {
        results.put(name, value);
        System.out.printf(Locale.ROOT, "%s=%.3f%n", name, value);
    }

    // ---------------------------------------------------------------- 1: launch host time

    private void launch(DeviceContext ctx, String suffix) {
        int n = quick ? 20_000 : 100_000;
        int reps = 5;
        DeviceFunction f = ctx.compile(EMPTY5);
        DeviceBuffer a = ctx.allocate(DType.F32, 1024);
        DeviceBuffer b = ctx.allocate(DType.F32, 1024);
        Object[] args = {a, 1024L, 2.5f, 7, b};
        LaunchConfig one = LaunchConfig.of(1, 1);
        DeviceStream s = ctx.createStream();
        double[] t = new double[reps];
        for (int r = -1; r < reps; r++) {
            s.synchronize();
            long t0 = System.nanoTime();
            DeviceFuture<Void> last = null;
            for (int i = 0; i < n; i++) {
                last = s.enqueueLaunch(f, one, args);
            }
            long t1 = System.nanoTime();
            last.join();
            if (r >= 0) {
                t[r] = (t1 - t0) / 1e3 / n;
            }
        }
        s.synchronize();
        result("sluice_launch5_future" + suffix + "_us", Samples.median(t));
        result("sluice_launch5_future" + suffix + "_min_us", Arrays.stream(t).min().orElseThrow());
        s.close();
    }

    /** The same kernel launched raw from Java: JCuda (reused Pointer objects) and java.lang.foreign (reused block). */
    private void rawLaunches(DeviceContext ctx) throws Throwable {
        int n = quick ? 20_000 : 100_000;
        int reps = 5;
        double[] t = new double[reps];
        DeviceFunction f = ctx.compile(EMPTY5);

        CUdevice dev = new CUdevice();
        JCudaDriver.cuDeviceGet(dev, 0);
        CUcontext primary = new CUcontext();
        JCudaDriver.cuDevicePrimaryCtxRetain(primary, dev);
        JCudaDriver.cuCtxSetCurrent(primary);
        CUmodule module = new CUmodule();
        check(JCudaDriver.cuModuleLoadData(module, f.assembly().orElseThrow() + "\0"), "cuModuleLoadData");
        CUfunction jf = new CUfunction();
        check(JCudaDriver.cuModuleGetFunction(jf, module, "empty5"), "cuModuleGetFunction");
        CUstream js = new CUstream();
        check(JCudaDriver.cuStreamCreate(js, 1), "cuStreamCreate");
        CUdeviceptr p1 = new CUdeviceptr();
        CUdeviceptr p2 = new CUdeviceptr();
        JCudaDriver.cuMemAlloc(p1, 4096);
        JCudaDriver.cuMemAlloc(p2, 4096);
        Pointer params = Pointer.to(Pointer.to(p1), Pointer.to(new long[] {1024}), Pointer.to(new float[] {2.5f}),
                Pointer.to(new int[] {7}), Pointer.to(p2));
        for (int r = -1; r < reps; r++) {
            JCudaDriver.cuStreamSynchronize(js);
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                JCudaDriver.cuLaunchKernel(jf, 1, 1, 1, 1, 1, 1, 0, js, params, null);
            }
            long t1 = System.nanoTime();
            if (r >= 0) {
                t[r] = (t1 - t0) / 1e3 / n;
            }
        }
        JCudaDriver.cuStreamSynchronize(js);
        result("jcuda_launch5_us", Samples.median(t));

        Linker linker = Linker.nativeLinker();
        SymbolLookup cuda = SymbolLookup.libraryLookup("libcuda.so.1", Arena.global());
        MethodHandle launch = linker.downcallHandle(cuda.find("cuLaunchKernel").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        long fn = nativePointer(jf);
        long stream = nativePointer(js);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment values = arena.allocate(40, 8);
            MemorySegment ptrs = arena.allocate(40, 8);
            values.set(ValueLayout.JAVA_LONG, 0, nativePointer(p1));
            values.set(ValueLayout.JAVA_LONG, 8, 1024L);
            values.set(ValueLayout.JAVA_INT, 16, Float.floatToRawIntBits(2.5f));
            values.set(ValueLayout.JAVA_INT, 24, 7);
            values.set(ValueLayout.JAVA_LONG, 32, nativePointer(p2));
            for (int i = 0; i < 5; i++) {
                ptrs.set(ValueLayout.JAVA_LONG, 8L * i, values.address() + 8L * i);
            }
            long pp = ptrs.address();
            for (int r = -1; r < reps; r++) {
                JCudaDriver.cuStreamSynchronize(js);
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    int rc = (int) launch.invokeExact(fn, 1, 1, 1, 1, 1, 1, 0, stream, pp, 0L);
                }
                long t1 = System.nanoTime();
                if (r >= 0) {
                    t[r] = (t1 - t0) / 1e3 / n;
                }
            }
            JCudaDriver.cuStreamSynchronize(js);
            result("ffm_launch5_us", Samples.median(t));

            // Launch + the marker the backend records after it, both raw through FFM: the floor under Sluice's figure.
            MethodHandle write64 = linker.downcallHandle(cuda.find("cuStreamWriteValue64_v2").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_INT));
            MethodHandle record = linker.downcallHandle(cuda.find("cuEventRecord").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
            Pointer host = new Pointer();
            check(JCudaDriver.cuMemHostAlloc(host, 4096, 3), "cuMemHostAlloc");
            CUdeviceptr counter = new CUdeviceptr();
            check(JCudaDriver.cuMemHostGetDevicePointer(counter, host, 0), "cuMemHostGetDevicePointer");
            long counterAddress = nativePointer(counter);
            jcuda.driver.CUevent[] pool = new jcuda.driver.CUevent[256];
            long[] poolAddress = new long[256];
            for (int i = 0; i < 256; i++) {
                pool[i] = new jcuda.driver.CUevent();
                JCudaDriver.cuEventCreate(pool[i], 2);
                poolAddress[i] = nativePointer(pool[i]);
            }
            for (int mode = 0; mode < 2; mode++) {
                long seq = 0;
                for (int r = -1; r < reps; r++) {
                    JCudaDriver.cuStreamSynchronize(js);
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        int rc = (int) launch.invokeExact(fn, 1, 1, 1, 1, 1, 1, 0, stream, pp, 0L);
                        if (mode == 0) {
                            rc = (int) write64.invokeExact(stream, counterAddress, ++seq, 0);
                        } else {
                            rc = (int) record.invokeExact(poolAddress[i & 255], stream);
                        }
                    }
                    long t1 = System.nanoTime();
                    if (r >= 0) {
                        t[r] = (t1 - t0) / 1e3 / n;
                    }
                }
                JCudaDriver.cuStreamSynchronize(js);
                result(mode == 0 ? "ffm_launch5_write64_us" : "ffm_launch5_event_us", Samples.median(t));
            }
            // The floor with futures: raw launch + marker + a CompletableFuture per launch, queued for a second thread
            // that polls the oldest marker (cuEventQuery, or the mapped counter) and completes it. No api layer: what is
            // left between this and Sluice's figure is Sluice's own code.
            MethodHandle query = linker.downcallHandle(cuda.find("cuEventQuery").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), Linker.Option.critical(false));
            MemorySegment counterHost = MemorySegment.ofAddress(nativePointer(host)).reinterpret(8);
            for (int mode = 0; mode < 2; mode++) {
                boolean events = mode == 1;
                ConcurrentLinkedQueue<long[]> queue = new ConcurrentLinkedQueue<>();
                ConcurrentLinkedQueue<CompletableFuture<Void>> futures = new ConcurrentLinkedQueue<>();
                AtomicBoolean stop = new AtomicBoolean();
                ConcurrentLinkedQueue<Long> freeEvents = new ConcurrentLinkedQueue<>();
                for (long e : poolAddress) {
                    freeEvents.add(e);
                }
                Thread poller = Thread.ofPlatform().daemon().start(() -> {
                    JCudaDriver.cuCtxSetCurrent(primary);
                    while (!stop.get()) {
                        long[] head = queue.peek();
                        if (head == null) {
                            Thread.onSpinWait();
                            continue;
                        }
                        boolean done;
                        try {
                            done = events ? (int) query.invokeExact(head[0]) == 0
                                    : counterHost.get(ValueLayout.JAVA_LONG, 0) >= head[0];
                        } catch (Throwable e) {
                            throw new IllegalStateException(e);
                        }
                        if (!done) {
                            Thread.onSpinWait();
                            continue;
                        }
                        queue.poll();
                        futures.poll().complete(null);
                        if (events) {
                            freeEvents.add(head[0]);
                        }
                    }
                });
                long seq = counterHost.get(ValueLayout.JAVA_LONG, 0);
                for (int r = -1; r < reps; r++) {
                    JCudaDriver.cuStreamSynchronize(js);
                    long t0 = System.nanoTime();
                    CompletableFuture<Void> last = null;
                    for (int i = 0; i < n; i++) {
                        int rc = (int) launch.invokeExact(fn, 1, 1, 1, 1, 1, 1, 0, stream, pp, 0L);
                        long marker;
                        if (events) {
                            Long e = freeEvents.poll();
                            while (e == null) {
                                Thread.onSpinWait();
                                e = freeEvents.poll();
                            }
                            marker = e;
                            rc = (int) record.invokeExact(marker, stream);
                        } else {
                            marker = ++seq;
                            rc = (int) write64.invokeExact(stream, counterAddress, marker, 0);
                        }
                        last = new CompletableFuture<>();
                        futures.add(last);
                        queue.add(new long[] {marker});
                    }
                    long t1 = System.nanoTime();
                    last.join();
                    if (r >= 0) {
                        t[r] = (t1 - t0) / 1e3 / n;
                    }
                }
                stop.set(true);
                poller.join();
                JCudaDriver.cuStreamSynchronize(js);
                result(events ? "ffm_launch5_event_future_us" : "ffm_launch5_write64_future_us", Samples.median(t));
            }
            for (jcuda.driver.CUevent e : pool) {
                JCudaDriver.cuEventDestroy(e);
            }
            JCudaDriver.cuMemFreeHost(host);
        }
        JCudaDriver.cuMemFree(p1);
        JCudaDriver.cuMemFree(p2);
        JCudaDriver.cuStreamDestroy(js);
        JCudaDriver.cuModuleUnload(module);
        JCudaDriver.cuDevicePrimaryCtxRelease(dev);
    }

    private static long nativePointer(jcuda.NativePointerObject o) throws Exception {
        var m = jcuda.NativePointerObject.class.getDeclaredMethod("getNativePointer");
        m.setAccessible(true);
        return (long) m.invoke(o);
    }

    private static void check(int r, String what) {
        if (r != 0) {
            throw new IllegalStateException(what + " failed: " + r);
        }
    }

    // ---------------------------------------------------------------- 2: idle completion latency

    private void latency(DeviceContext ctx, String strategy) {
        int n = quick ? 2_000 : 10_000;
        DeviceFunction f = ctx.compile(WRITE_ONE);
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        DeviceStream s = ctx.createStream();
        LaunchConfig one = LaunchConfig.of(1, 1);
        Object[] args = {p, 0};
        double[] t = new double[n];
        s.synchronize();
        // 2,000 warm-up rounds: enough for the JIT to compile the enqueue and completion paths of this context, so
        // the strategy measured first is not the one that also paid for compilation
        for (int i = -2_000; i < n; i++) {
            args[1] = i;
            long t0 = System.nanoTime();
            DeviceFuture<Void> fu = s.enqueueLaunch(f, one, args);
            while (!fu.isDone()) {
                Thread.onSpinWait();
            }
            long t1 = System.nanoTime();
            if (i >= 0) {
                t[i] = (t1 - t0) / 1e3;
            }
        }
        result("sluice_latency_" + strategy + "_p50_us", Samples.percentile(t, 50));
        result("sluice_latency_" + strategy + "_p99_us", Samples.percentile(t, 99));
        result("sluice_latency_" + strategy + "_min_us", Arrays.stream(t).min().orElseThrow());
        s.close();
    }

    // ---------------------------------------------------------------- 3: many tiny kernels with futures

    private void tiny(DeviceContext ctx, String suffix) {
        int n = quick ? 20_000 : 100_000;
        int reps = quick ? 3 : 5;
        DeviceFunction f = ctx.compile(WRITE_ONE);
        DeviceBuffer p = ctx.allocate(DType.I32, 1);
        DeviceStream s = ctx.createStream();
        LaunchConfig one = LaunchConfig.of(1, 1);
        Integer[] boxed = new Integer[n];
        for (int i = 0; i < n; i++) {
            boxed[i] = i; // boxed outside the timed loop: C passes its int by pointer
        }
        Object[] args = {p, 0};
        double[] t = new double[reps];
        for (int r = -1; r < reps; r++) {
            s.synchronize();
            long t0 = System.nanoTime();
            DeviceFuture<Void> last = null;
            for (int i = 0; i < n; i++) {
                args[1] = boxed[i];
                last = s.enqueueLaunch(f, one, args);
            }
            while (!last.isDone()) {
                Thread.onSpinWait();
            }
            long t1 = System.nanoTime();
            if (r >= 0) {
                t[r] = (t1 - t0) / 1e6;
            }
            int[] got = new int[1];
            s.enqueueCopy(p, HostData.of(got)).join();
            if (got[0] != n - 1) {
                throw new IllegalStateException("tiny kernels: device holds " + got[0] + ", expected " + (n - 1));
            }
        }
        result("sluice_tiny_" + n / 1000 + "k" + suffix + "_ms", Samples.median(t));
        result("sluice_tiny_per_kernel" + suffix + "_us", Samples.median(t) * 1e3 / n);
        s.close();
    }

    // ---------------------------------------------------------------- 4: pinned bandwidth

    private void bandwidth(DeviceContext ctx) {
        int reps = quick ? 3 : 5;
        long maxBytes = 512L << 20;
        HostBuffer hin = ctx.allocateHost(DType.U8, maxBytes);
        HostBuffer hout = ctx.allocateHost(DType.U8, maxBytes);
        DeviceBuffer din = ctx.allocate(DType.U8, maxBytes);
        DeviceBuffer dout = ctx.allocate(DType.U8, maxBytes);
        DeviceStream s = ctx.stream();
        try (DeviceEvent e0 = ctx.createEvent(EventFlag.TIMING); DeviceEvent e1 = ctx.createEvent(EventFlag.TIMING)) {
            // The timed sequence on small copies first, until the JIT has compiled it: the events measure from e0's
            // record to e1's, so the host time between e0 and the copy's submission counts, and interpreted enqueue
            // code (one warm-up run of each size is not enough) added some 50 µs to every 64 MiB copy.
            HostBuffer hw = hin.slice(0, 4096);
            DeviceBuffer dw = din.slice(0, 4096);
            for (int i = 0; i < 3_000; i++) {
                s.enqueueRecord(e0);
                s.enqueueCopy(hw, dw);
                s.enqueueCopy(dw, hout.slice(0, 4096));
                s.enqueueRecord(e1).join();
            }
            for (int mib : new int[] {64, 256, 512}) {
                long bytes = (long) mib << 20;
                HostBuffer hi = hin.slice(0, bytes);
                HostBuffer ho = hout.slice(0, bytes);
                DeviceBuffer di = din.slice(0, bytes);
                DeviceBuffer dox = dout.slice(0, bytes);
                double[][] ev = new double[2][reps];
                double[][] wall = new double[2][reps];
                for (int r = -1; r < reps; r++) {
                    for (int dir = 0; dir < 2; dir++) {
                        s.enqueueRecord(e0);
                        long t0 = System.nanoTime();
                        DeviceFuture<Void> c = dir == 0 ? s.enqueueCopy(hi, di) : s.enqueueCopy(dox, ho);
                        s.enqueueRecord(e1);
                        while (!c.isDone()) {
                            Thread.onSpinWait();
                        }
                        long t1 = System.nanoTime();
                        e1.synchronize();
                        if (r >= 0) {
                            ev[dir][r] = bytes / (e0.elapsed(e1).toNanos() * 1e-9) / 1e9;
                            wall[dir][r] = bytes / ((t1 - t0) * 1e-9) / 1e9;
                        }
                    }
                }
                result("sluice_bw_h2d_" + mib + "MiB_GBps", Samples.median(ev[0]));
                result("sluice_bw_d2h_" + mib + "MiB_GBps", Samples.median(ev[1]));
                result("sluice_bw_h2d_" + mib + "MiB_wall_GBps", Samples.median(wall[0]));
                result("sluice_bw_d2h_" + mib + "MiB_wall_GBps", Samples.median(wall[1]));
            }
        }
        hin.close();
        hout.close();
        din.close();
        dout.close();
    }

    // ---------------------------------------------------------------- report

    private void report(Path nativeFile) throws IOException {
        Map<String, Double> c = new LinkedHashMap<>();
        if (nativeFile != null && Files.exists(nativeFile)) {
            for (String line : Files.readAllLines(nativeFile, StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    try {
                        c.put(line.substring(0, eq).strip(), Double.parseDouble(line.substring(eq + 1).strip()));
                    } catch (NumberFormatException ignored) {
                        // device name, date
                    }
                }
            }
        }
        System.out.println();
        System.out.println("target                                         C            Sluice       ratio   goal");
        row(c, "launch 5 args + future (host us/call)", "launch5_us", "sluice_launch5_future_us", "<= 1.30", false);
        row(c, "  same, BLOCKING wait strategy", "launch5_us", "sluice_launch5_future_blocking_us", "", false);
        row(c, "  raw JCuda launch 5 args (us/call)", "launch5_us", "jcuda_launch5_us", "", false);
        row(c, "  raw FFM launch 5 args (us/call)", "launch5_us", "ffm_launch5_us", "", false);
        row(c, "  raw FFM launch + cuStreamWriteValue64", "launch5_event_us", "ffm_launch5_write64_us", "", false);
        row(c, "  raw FFM launch + cuEventRecord", "launch5_event_us", "ffm_launch5_event_us", "", false);
        row(c, "  raw FFM launch + write64 + future, poller", "launch5_us", "ffm_launch5_write64_future_us", "", false);
        row(c, "  raw FFM launch + event + future, poller", "launch5_us", "ffm_launch5_event_future_us", "", false);
        row(c, "idle latency p50, PARK (us)", "latency_event_p50_us", "sluice_latency_park_p50_us", "<= 1.30", false);
        row(c, "idle latency p50, SPIN (us)", "latency_event_p50_us", "sluice_latency_spin_p50_us", "<= 1.30", false);
        row(c, "idle latency p50, BLOCKING", "latency_event_p50_us", "sluice_latency_blocking_p50_us", "", false);
        row(c, "idle latency p99, PARK (us)", "latency_event_p99_us", "sluice_latency_park_p99_us", "", false);
        String tinyKey = quick ? "tiny_20k_ms" : "tiny_100k_ms";
        row(c, "tiny kernels with futures (ms)", tinyKey, "sluice_" + tinyKey, "<= 1.15", false);
        row(c, "  same, BLOCKING wait strategy", tinyKey, "sluice_" + tinyKey.replace("_ms", "_blocking_ms"), "", false);
        for (int mib : new int[] {64, 256, 512}) {
            row(c, "pinned H2D " + mib + " MiB (GB/s, events)", "bw_h2d_" + mib + "MiB_GBps", "sluice_bw_h2d_" + mib + "MiB_GBps", ">= 0.97", true);
            row(c, "pinned D2H " + mib + " MiB (GB/s, events)", "bw_d2h_" + mib + "MiB_GBps", "sluice_bw_d2h_" + mib + "MiB_GBps", ">= 0.97", true);
            row(c, "  H2D " + mib + " MiB, host-observed future", "bw_h2d_" + mib + "MiB_GBps", "sluice_bw_h2d_" + mib + "MiB_wall_GBps", "", true);
            row(c, "  D2H " + mib + " MiB, host-observed future", "bw_d2h_" + mib + "MiB_GBps", "sluice_bw_d2h_" + mib + "MiB_wall_GBps", "", true);
        }
    }

    private void row(Map<String, Double> c, String what, String cKey, String sKey, String goal, boolean higherIsBetter) {
        Double cv = c.get(cKey);
        Double sv = results.get(sKey);
        if (sv == null) {
            return;
        }
        String ratio = cv == null ? "-" : String.format(Locale.ROOT, "%.3f", sv / cv);
        System.out.printf(Locale.ROOT, "%-44s %-12s %-12s %-7s %s%n", what, cv == null ? "-" : String.format(Locale.ROOT, "%.3f", cv),
                String.format(Locale.ROOT, "%.3f", sv), ratio, goal);
        if (cv != null) {
            System.out.printf(Locale.ROOT, "ratio_%s=%.3f%n", sKey, sv / cv);
        }
    }
}
