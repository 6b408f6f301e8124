package dev.sluice.benchmarks.cuda;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.SluiceProperties;
import dev.sluice.reactive.Chunks;
import dev.sluice.reactive.GpuPipeline;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;
import reactor.core.publisher.Flux;

/**
 * Two devices of one host: peer-copy bandwidth, Sluice's against C's {@code cuMemcpyPeerAsync} in the same process,
 * and a {@link GpuPipeline} over one device against the same pipeline over two.
 *
 * <ul>
 * <li><b>peer</b>: {@code --peer-mib} MiB from device 1 to device 0, {@code --copies} copies back to back per block,
 * timed on the host from the first enqueue to the end of the last copy. First Sluice's copies before peer access is
 * enabled (the driver then stages through host memory), then, with peer access on both ways, blocks that alternate C
 * ({@code benchmarks/native/sluice_peer.c}, called through {@code java.lang.foreign}, in the same primary contexts) and
 * Sluice ({@link DeviceStream#enqueueCopy(DeviceBuffer, DeviceBuffer)} across contexts, a future each). Ratio: median
 * over the blocks of Sluice's bandwidth / C's. The copied bytes are checked.
 * <li><b>pipeline</b>: {@code --total-mib} MiB in {@code --chunks} chunks through an in-place {@link GpuPipeline} whose
 * stage runs a kernel of {@code passes} dependent FMAs per element (the same work for every chunk), with
 * {@code --lanes} lanes per device; one device against two, alternating, {@code --reps} timed runs each after a
 * warm-up. Ratio: one device's median time / two devices' median time. Every result is checked. Two loads
 * ({@code --loads}): <em>arrays</em>, {@code float[]} chunks and results ({@link Chunks#floats()}), which the host
 * copies into and out of the lanes' pinned staging; and <em>pinned</em>, pinned chunks and pinned targets of device 0's
 * context ({@link Chunks#hostBuffers()}, {@link GpuPipeline.Builder#buildInto}), which the lanes of both devices copy
 * directly ({@link DeviceContext#sharesPinnedMemoryWith}): no host copy. Each load is balanced: first the pipeline
 * runs on one device with one pass (its time is the transfers'), then the kernel alone times a pass on one chunk, and
 * {@code passes} is chosen so that the kernels of all chunks take on one device as long as those transfers
 * ({@code --balance R}: R times as long; {@code --passes N} sets it instead). With {@code --lib}, the pinned load
 * also prints C's transfers alone over one device and two ({@code multi_c_dma_*}: what the copy engines, links and
 * host memory allow, the ceiling of a load whose kernels take as long as its transfers). For arrays it also prints the host copies alone ({@code multi_host_*}: each
 * chunk into pinned memory and back into a new array, as many at once as one device's and two devices' lanes hold),
 * the floor of that load on this host whatever the devices. Size the heap for it ({@code -Xms16g -Xmx16g
 * -XX:+AlwaysPreTouch}, as {@code scripts/gpu-run.sh multi} does): with the default heap, page faults and
 * collections of the results' gigabyte dominate the host copies.
 * </ul>
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... dev.sluice.benchmarks.cuda.MultiGpuBench --lib libsluice_peer.so
 *     [--api cuda] [--peer-mib 256] [--copies 16] [--blocks 10] [--total-mib 1024] [--chunks 64] [--passes balanced]
 *     [--lanes 3] [--chunks-per-lane 2] [--reps 5] [--loads arrays,pinned] [--balance 1] [--only peer,pipeline]</pre>
 *
 * Without {@code --lib} the peer part runs Sluice's side alone. Output: {@code key=value} lines ({@code multi_*}),
 * ratios first. On the CPU simulator ({@code --api cpu}, which it gives two devices) it runs as a smoke test: its
 * figures say nothing about GPUs.
 */
public final class MultiGpuBench {

    /** {@code --chunks-per-lane}: chunks a lane holds at once, so host copies that may run at once per lane. */
    private static int chunksPerLane = 2;

    /** {@code --balance}: the kernels' time over the transfers' on one device, when the passes are chosen. */
    private static double balance = 1.0;

    /** v[i] = passes dependent FMAs of v[i]: compute-bound, the same work for every element. */
    static final Kernel SPIN = Kernel.named("spin_fma")
            .params(KernelParam.pointer("v", DType.F32), KernelParam.scalar("n", DType.I64), KernelParam.scalar("passes", DType.I32))
            .cudaSource("""
                    extern "C" __global__ void spin_fma(float* v, long long n, int passes) {
                        for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n;
                                i += (long long) gridDim.x * blockDim.x) {
                            float x = v[i];
                            for (int p = 0; p < passes; p++) x = fmaf(x, 0.5f, 0.25f);
                            v[i] = x;
                        }
                    }""")
            .java(t -> {
                long n = t.longArg(1);
                int passes = t.intArg(2);
                var v = t.pointer(0);
                for (long i = t.globalIdX(); i < n; i += (long) t.gridDim().x() * t.blockDim().x()) {
                    float x = v.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                    for (int p = 0; p < passes; p++) {
                        x = Math.fma(x, 0.5f, 0.25f);
                    }
                    v.setAtIndex(ValueLayout.JAVA_FLOAT, i, x);
                }
            })
            .build();

    private MultiGpuBench() {
    }

    public static void main(String[] args) throws Throwable {
        OptionParser parser = new OptionParser();
        OptionSpec<String> apiOpt = parser.accepts("api", "backend").withRequiredArg().defaultsTo("cuda");
        OptionSpec<Path> libOpt = parser.accepts("lib", "libsluice_peer.so (C's side of the peer copies)").withRequiredArg()
                .withValuesConvertedBy(new joptsimple.util.PathConverter());
        OptionSpec<Integer> peerMib = parser.accepts("peer-mib").withRequiredArg().ofType(Integer.class).defaultsTo(256);
        OptionSpec<Integer> copiesOpt = parser.accepts("copies").withRequiredArg().ofType(Integer.class).defaultsTo(16);
        OptionSpec<Integer> blocksOpt = parser.accepts("blocks").withRequiredArg().ofType(Integer.class).defaultsTo(10);
        OptionSpec<Integer> totalMib = parser.accepts("total-mib").withRequiredArg().ofType(Integer.class).defaultsTo(1024);
        OptionSpec<Integer> chunksOpt = parser.accepts("chunks").withRequiredArg().ofType(Integer.class).defaultsTo(64);
        OptionSpec<Integer> passesOpt = parser.accepts("passes").withRequiredArg().ofType(Integer.class);
        OptionSpec<Integer> lanesOpt = parser.accepts("lanes").withRequiredArg().ofType(Integer.class).defaultsTo(3);
        OptionSpec<Integer> perLaneOpt = parser.accepts("chunks-per-lane").withRequiredArg().ofType(Integer.class).defaultsTo(2);
        OptionSpec<Integer> repsOpt = parser.accepts("reps").withRequiredArg().ofType(Integer.class).defaultsTo(5);
        OptionSpec<String> loadsOpt = parser.accepts("loads", "arrays (float[] through staging), pinned (pinned chunks and targets)")
                .withRequiredArg().withValuesSeparatedBy(',').defaultsTo("arrays", "pinned");
        OptionSpec<Double> balanceOpt = parser.accepts("balance", "kernels' time over the transfers' on one device")
                .withRequiredArg().ofType(Double.class).defaultsTo(1.0);
        OptionSpec<String> onlyOpt = parser.accepts("only").withRequiredArg().withValuesSeparatedBy(',').defaultsTo("peer", "pipeline");
        parser.accepts("help").forHelp();
        OptionSet o = parser.parse(args);
        if (o.has("help")) {
            parser.printHelpOn(System.out);
            return;
        }
        Api api = Api.of(o.valueOf(apiOpt));
        if (api == Api.CPU && Integer.getInteger(SluiceProperties.CPU_DEVICES, 1) < 2) {
            System.setProperty(SluiceProperties.CPU_DEVICES, "2");
        }
        int devices = DeviceContext.deviceCount(api);
        if (devices < 2) {
            System.out.println("multi_skipped=needs two " + api.id() + " devices; this machine has " + devices);
            return;
        }
        List<String> only = o.valuesOf(onlyOpt);
        chunksPerLane = o.valueOf(perLaneOpt);
        try (DeviceContext d0 = DeviceContext.open(api, 0); DeviceContext d1 = DeviceContext.open(api, 1)) {
            System.out.println("multi_devices=" + d0.name() + " | " + d1.name());
            if (only.contains("peer")) {
                peer(d0, d1, o.has(libOpt) ? o.valueOf(libOpt) : null, (long) o.valueOf(peerMib) << 20, o.valueOf(copiesOpt),
                        o.valueOf(blocksOpt));
            }
            if (only.contains("pipeline")) {
                balance = o.valueOf(balanceOpt);
                pipeline(d0, d1, o.has(libOpt) ? o.valueOf(libOpt) : null, o.valuesOf(loadsOpt), (long) o.valueOf(totalMib) << 20,
                        o.valueOf(chunksOpt), o.has(passesOpt) ? o.valueOf(passesOpt) : 0, o.valueOf(lanesOpt), o.valueOf(repsOpt));
            }
        }
    }

    // ---------------------------------------------------------------- peer copies

    private static void peer(DeviceContext d0, DeviceContext d1, Path lib, long bytes, int copies, int blocks) throws Throwable {
        try (DeviceBuffer src = d1.allocate(DType.U8, bytes); DeviceBuffer dst = d0.allocate(DType.U8, bytes);
             DeviceStream s = d0.createStream()) {
            d1.stream().enqueueMemset(src, 7).join();
            double staged = gbps(bytes * copies, sluiceCopies(s, src, dst, copies));
            check(s, dst, "Sluice's copy without peer access");
            boolean canPeer = d0.canAccess(d1) && d1.canAccess(d0);
            System.out.printf(Locale.ROOT, "multi_peer_access_possible=%b%n", canPeer);
            System.out.printf(Locale.ROOT, "multi_peer_off_sluice_GBps=%.1f%n", staged);
            if (canPeer) {
                d0.enablePeerAccess(d1);
                d1.enablePeerAccess(d0);
            }
            CPeer c = lib == null ? null : new CPeer(lib, d1.id(), d0.id(), bytes, canPeer);
            double[] sluice = new double[blocks];
            double[] cs = new double[blocks];
            double[] ratio = new double[blocks];
            sluiceCopies(s, src, dst, copies); // warm-up
            if (c != null) {
                c.copies(bytes, copies);
            }
            for (int b = 0; b < blocks; b++) {
                boolean cFirst = (b & 1) == 0;
                if (c != null && cFirst) {
                    cs[b] = gbps(bytes * copies, c.copies(bytes, copies));
                }
                sluice[b] = gbps(bytes * copies, sluiceCopies(s, src, dst, copies));
                if (c != null && !cFirst) {
                    cs[b] = gbps(bytes * copies, c.copies(bytes, copies));
                }
                ratio[b] = c == null ? Double.NaN : sluice[b] / cs[b];
            }
            check(s, dst, "Sluice's peer copy");
            if (c != null) {
                c.close();
                System.out.printf(Locale.ROOT, "multi_peer_ratio_sluice_over_c=%.3f%n", median(ratio));
                System.out.printf(Locale.ROOT, "multi_peer_c_GBps=%.1f%n", median(cs));
            }
            System.out.printf(Locale.ROOT, "multi_peer_%s_sluice_GBps=%.1f%n", canPeer ? "on" : "off", median(sluice));
            System.out.printf(Locale.ROOT, "multi_peer_bytes=%d%nmulti_peer_copies_per_block=%d%nmulti_peer_blocks=%d%n", bytes,
                    copies, blocks);
        }
    }

    private static long sluiceCopies(DeviceStream s, DeviceBuffer src, DeviceBuffer dst, int copies) {
        long t0 = System.nanoTime();
        DeviceFuture<Void> last = null;
        for (int i = 0; i < copies; i++) {
            last = s.enqueueCopy(src, dst);
        }
        last.join();
        return System.nanoTime() - t0;
    }

    private static void check(DeviceStream s, DeviceBuffer dst, String what) {
        byte[] head = new byte[64];
        s.enqueueCopy(dst.slice(0, head.length), HostData.of(head)).join();
        for (byte b : head) {
            if (b != 7) {
                throw new AssertionError(what + " left " + Arrays.toString(head) + " at the start of the destination");
            }
        }
    }

    private static double gbps(long bytes, long nanos) {
        return bytes / (double) nanos; // bytes per ns = GB/s
    }

    /** C's side: {@code benchmarks/native/sluice_peer.c}. */
    private static final class CPeer {
        private final MethodHandle copies;
        private final MethodHandle check;
        private final MethodHandle close;

        CPeer(Path lib, int source, int destination, long bytes, boolean peer) throws Throwable {
            SymbolLookup c = SymbolLookup.libraryLookup(lib, Arena.global());
            Linker linker = Linker.nativeLinker();
            MethodHandle open = linker.downcallHandle(c.find("pc_open").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            copies = linker.downcallHandle(c.find("pc_copies").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            check = linker.downcallHandle(c.find("pc_check").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG));
            close = linker.downcallHandle(c.find("pc_close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG));
            ok((long) open.invokeExact(source, destination, bytes, peer ? 1 : 0), "pc_open");
        }

        long copies(long bytes, int count) throws Throwable {
            return ok((long) copies.invokeExact(bytes, count), "pc_copies");
        }

        void close() throws Throwable {
            long first = ok((long) check.invokeExact(), "pc_check");
            if (first != 7) {
                throw new AssertionError("C's peer copy left " + first + " at the start of the destination");
            }
            ok((long) close.invokeExact(), "pc_close");
        }

        static long ok(long r, String call) {
            if (r == -1000) {
                throw new AssertionError(call + ": a chunk did not come back");
            }
            if (r < 0) {
                throw new IllegalStateException(call + " failed: CUresult " + (-r));
            }
            return r;
        }
    }

    /**
     * C's transfers of the pinned pipeline alone ({@code pc_dma_*} in {@code benchmarks/native/sluice_peer.c}): every
     * chunk up from pinned memory and back down, three lanes per device, over one device and over two. Median of five
     * each, alternating, after a warm-up.
     */
    private static void cDma(Path lib, long chunkBytes, int chunks) throws Throwable {
        SymbolLookup c = SymbolLookup.libraryLookup(lib, Arena.global());
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor three = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT);
        MethodHandle open = linker.downcallHandle(c.find("pc_dma_open").orElseThrow(), three);
        MethodHandle dma = linker.downcallHandle(c.find("pc_dma").orElseThrow(), three);
        MethodHandle close = linker.downcallHandle(c.find("pc_dma_close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_LONG));
        CPeer.ok((long) open.invokeExact(2, chunkBytes, chunks), "pc_dma_open");
        try {
            CPeer.ok((long) dma.invokeExact(1, chunkBytes, chunks), "pc_dma");
            CPeer.ok((long) dma.invokeExact(2, chunkBytes, chunks), "pc_dma");
            double[] one = new double[5];
            double[] two = new double[5];
            for (int r = 0; r < one.length; r++) {
                one[r] = CPeer.ok((long) dma.invokeExact(1, chunkBytes, chunks), "pc_dma") / 1e6;
                two[r] = CPeer.ok((long) dma.invokeExact(2, chunkBytes, chunks), "pc_dma") / 1e6;
            }
            System.out.printf(Locale.ROOT, "multi_c_dma_one_device_ms=%.1f%nmulti_c_dma_two_devices_ms=%.1f%n"
                    + "multi_c_dma_two_over_one=%.3f%n", median(one), median(two), median(one) / median(two));
        } finally {
            CPeer.ok((long) close.invokeExact(), "pc_dma_close");
        }
    }

    // ---------------------------------------------------------------- one device against two

    /**
     * What the pipeline carries: {@code float[]} chunks in and out ({@link Chunks#floats()}, copied through the lanes'
     * pinned staging on the host), or pinned chunks of device 0's context in and pinned targets out
     * ({@link Chunks#hostBuffers()}, {@link GpuPipeline.Builder#buildInto}: no host copy, the lanes of both devices
     * reading and writing the same pinned memory).
     */
    private interface Load extends AutoCloseable {
        String name();

        GpuPipeline<?, ?> build(List<DeviceContext> contexts, int passes, int lanes);

        /** Milliseconds for every chunk through {@code p}; checks the first and last element of every result. */
        double run(GpuPipeline<?, ?> p, float[] expected);

        @Override
        void close();
    }

    private static GpuPipeline.Builder builder(List<DeviceContext> contexts, long chunkElements, int passes, int lanes) {
        return GpuPipeline.builder(contexts).lanes(lanes).chunksPerLane(chunksPerLane).chunkElements(chunkElements, DType.F32)
                .inPlace().kernel(SPIN)
                .stage((lane, in, out) -> lane.stream().enqueueLaunch(lane.function(SPIN),
                        LaunchConfig.forElements(lane.elements()), in, lane.elements(), passes));
    }

    private static void checkResult(int i, float first, float last, float[] expected) {
        if (first != expected[i] || last != expected[i]) {
            throw new AssertionError("chunk " + i + ": " + first + " .. " + last + ", expected " + expected[i]);
        }
    }

    /** {@code float[]} chunks, chunk {@code i} holding {@code i} everywhere. */
    private static final class ArrayLoad implements Load {
        private final List<float[]> input = new ArrayList<>();
        private final int chunkElements;

        ArrayLoad(int chunkCount, int chunkElements) {
            this.chunkElements = chunkElements;
            for (int i = 0; i < chunkCount; i++) {
                float[] c = new float[chunkElements];
                Arrays.fill(c, i);
                input.add(c);
            }
        }

        @Override
        public String name() {
            return "arrays";
        }

        @Override
        public GpuPipeline<?, ?> build(List<DeviceContext> contexts, int passes, int lanes) {
            return builder(contexts, chunkElements, passes, lanes).build(Chunks.floats());
        }

        @Override
        @SuppressWarnings("unchecked")
        public double run(GpuPipeline<?, ?> p, float[] expected) {
            long t0 = System.nanoTime();
            List<float[]> out = ((GpuPipeline<float[], float[]>) p).process(Flux.fromIterable(input)).collectList()
                    .block(Duration.ofMinutes(10));
            double ms = (System.nanoTime() - t0) / 1e6;
            for (int i = 0; i < expected.length; i++) {
                float[] r = out.get(i);
                checkResult(i, r[0], r[r.length - 1], expected);
            }
            return ms;
        }

        @Override
        public void close() {
        }
    }

    /** Pinned chunks and targets, all of device 0's context; each run refills the chunks (untimed). */
    private static final class PinnedLoad implements Load {
        private final List<dev.sluice.HostBuffer> input = new ArrayList<>();
        private final List<dev.sluice.HostBuffer> targets = new ArrayList<>();
        private final int chunkElements;

        PinnedLoad(DeviceContext owner, int chunkCount, int chunkElements) {
            this.chunkElements = chunkElements;
            for (int i = 0; i < chunkCount; i++) {
                input.add(owner.allocateHost(DType.F32, chunkElements));
                targets.add(owner.allocateHost(DType.F32, chunkElements));
            }
        }

        @Override
        public String name() {
            return "pinned";
        }

        @Override
        public GpuPipeline<?, ?> build(List<DeviceContext> contexts, int passes, int lanes) {
            return builder(contexts, chunkElements, passes, lanes)
                    .buildInto(Chunks.hostBuffers(), (chunk, seq, n) -> targets.get((int) seq));
        }

        @Override
        @SuppressWarnings("unchecked")
        public double run(GpuPipeline<?, ?> p, float[] expected) {
            for (int i = 0; i < input.size(); i++) {
                input.get(i).segment().fill((byte) 0); // then element 0 and the last set to i: all the kernel reads back
                input.get(i).setFloat(0, i);
                input.get(i).setFloat(chunkElements - 1, i);
            }
            long t0 = System.nanoTime();
            ((GpuPipeline<dev.sluice.HostBuffer, dev.sluice.HostBuffer>) p).process(Flux.fromIterable(input))
                    .blockLast(Duration.ofMinutes(10));
            double ms = (System.nanoTime() - t0) / 1e6;
            for (int i = 0; i < expected.length; i++) {
                dev.sluice.HostBuffer r = targets.get(i);
                checkResult(i, r.getFloat(0), r.getFloat(chunkElements - 1), expected);
            }
            return ms;
        }

        @Override
        public void close() {
            input.forEach(dev.sluice.HostBuffer::close);
            targets.forEach(dev.sluice.HostBuffer::close);
        }
    }

    /** {@code passes} 0: balanced, see the class comment. */
    private static void pipeline(DeviceContext d0, DeviceContext d1, Path lib, List<String> loads, long totalBytes,
            int chunkCount, int fixedPasses, int lanes, int reps) throws Throwable {
        int chunkElements = Math.toIntExact(totalBytes / 4 / chunkCount);
        System.out.printf(Locale.ROOT, "multi_host_cores=%d%nmulti_host_fork_join_parallelism=%d%nmulti_host_max_heap_mib=%d%n",
                Runtime.getRuntime().availableProcessors(), ForkJoinPool.getCommonPoolParallelism(),
                Runtime.getRuntime().maxMemory() >> 20);
        for (String name : loads) {
            try (Load load = switch (name) {
                case "pinned" -> new PinnedLoad(d0, chunkCount, chunkElements);
                case "arrays" -> new ArrayLoad(chunkCount, chunkElements);
                default -> throw new IllegalArgumentException("--loads: '" + name + "' is neither arrays nor pinned");
            }) {
                if (load instanceof PinnedLoad && lib != null) {
                    cDma(lib, (long) chunkElements * 4, chunkCount);
                }
                if (load instanceof ArrayLoad a) {
                    for (int k : new int[] {lanes * chunksPerLane, 2 * lanes * chunksPerLane}) {
                        System.out.printf(Locale.ROOT, "multi_host_copies_only_%d_at_once_ms=%.1f%n", k, hostCopyMillis(d0, a.input, k));
                    }
                }
                compare(d0, d1, load, totalBytes, chunkCount, chunkElements, fixedPasses, lanes, reps);
            }
        }
    }

    /** One load through the pipeline over one device and over two, alternating; the passes balanced unless fixed. */
    private static void compare(DeviceContext d0, DeviceContext d1, Load load, long totalBytes, int chunkCount, int chunkElements,
            int fixedPasses, int lanes, int reps) {
        String key = "multi_pipeline_" + load.name() + "_";
        int passes = fixedPasses;
        if (passes == 0) {
            double transferMs = transferMillis(List.of(d0), load, chunkCount, lanes);
            // What two devices cannot beat whatever the load: the host side and the DMA over two links.
            System.out.printf(Locale.ROOT, "%stransfer_only_two_devices_ms=%.1f%n", key,
                    transferMillis(List.of(d0, d1), load, chunkCount, lanes));
            double passMs = kernelPassMillis(d0, chunkElements);
            passes = (int) Math.max(1, Math.round(balance * transferMs / chunkCount / passMs));
            System.out.printf(Locale.ROOT, "%stransfer_only_ms=%.1f%n%skernel_pass_us_per_chunk=%.3f%n", key, transferMs, key,
                    passMs * 1e3);
        }
        float[] expected = expected(chunkCount, passes);
        try (GpuPipeline<?, ?> one = load.build(List.of(d0), passes, lanes);
             GpuPipeline<?, ?> two = load.build(List.of(d0, d1), passes, lanes)) {
            load.run(one, expected); // warm-up: lanes opened, kernels loaded
            load.run(two, expected);
            double[] t1 = new double[reps];
            double[] t2 = new double[reps];
            for (int r = 0; r < reps; r++) {
                if ((r & 1) == 0) {
                    t1[r] = load.run(one, expected);
                    t2[r] = load.run(two, expected);
                } else {
                    t2[r] = load.run(two, expected);
                    t1[r] = load.run(one, expected);
                }
            }
            System.out.printf(Locale.ROOT, "%sspeedup_two_over_one=%.3f%n", key, median(t1) / median(t2));
            System.out.printf(Locale.ROOT, "%sone_device_ms=%.1f%n%stwo_devices_ms=%.1f%n", key, median(t1), key, median(t2));
            System.out.printf(Locale.ROOT, "%stotal_bytes=%d%n%schunks=%d%n%spasses=%d%n%slanes_per_device=%d%n"
                    + "%schunks_per_lane=%d%n%sreps=%d%n%sbalance=%s%n", key, totalBytes, key, chunkCount, key, passes, key, lanes,
                    key, chunksPerLane, key, reps, key, fixedPasses == 0 ? balance : "fixed passes");
        }
    }

    /** The median of three runs of the pipeline over {@code contexts} with one pass (after a warm-up): its transfers. */
    private static double transferMillis(List<DeviceContext> contexts, Load load, int chunkCount, int lanes) {
        float[] expected = expected(chunkCount, 1);
        try (GpuPipeline<?, ?> p = load.build(contexts, 1, lanes)) {
            load.run(p, expected);
            double[] t = new double[3];
            for (int r = 0; r < t.length; r++) {
                t[r] = load.run(p, expected);
            }
            return median(t);
        }
    }

    /**
     * The host side alone, the floor of any pipeline of these arrays on this host: each chunk copied into a pinned
     * buffer and read back into a new {@code float[]} ({@link Chunks#floats()}, as the pipeline does), {@code atOnce}
     * chunks at a time on the common fork-join pool, no device involved. Median of three after a warm-up.
     */
    private static double hostCopyMillis(DeviceContext context, List<float[]> input, int atOnce) {
        int elements = input.get(0).length;
        List<dev.sluice.HostBuffer> pinned = new ArrayList<>();
        try {
            for (int i = 0; i < atOnce; i++) {
                pinned.add(context.allocateHost(DType.F32, elements));
            }
            double[] t = new double[4];
            for (int r = 0; r < t.length; r++) {
                long t0 = System.nanoTime();
                CompletableFuture<?>[] slots = new CompletableFuture<?>[atOnce];
                for (int k = 0; k < atOnce; k++) {
                    int slot = k;
                    slots[k] = CompletableFuture.runAsync(() -> {
                        MemorySegment seg = pinned.get(slot).segment();
                        for (int i = slot; i < input.size(); i += atOnce) {
                            Chunks.floats().copyTo(input.get(i), seg);
                            float[] back = Chunks.floats().read(seg, DType.F32, elements);
                            if (back[0] != input.get(i)[0]) {
                                throw new AssertionError("chunk " + i + " came back as " + back[0]);
                            }
                        }
                    }, ForkJoinPool.commonPool());
                }
                CompletableFuture.allOf(slots).join();
                t[r] = (System.nanoTime() - t0) / 1e6;
            }
            return median(Arrays.copyOfRange(t, 1, t.length));
        } finally {
            pinned.forEach(dev.sluice.HostBuffer::close);
        }
    }

    /** What {@code passes} FMAs make of chunk {@code i}'s value {@code i}, as the kernel computes it. */
    private static float[] expected(int chunkCount, int passes) {
        float[] expected = new float[chunkCount];
        for (int i = 0; i < chunkCount; i++) {
            float x = i;
            for (int p = 0; p < passes; p++) {
                x = Math.fma(x, 0.5f, 0.25f);
            }
            expected[i] = x;
        }
        return expected;
    }

    /**
     * Milliseconds of one pass of the kernel over one chunk on {@code context}: 16,384 passes timed (milliseconds, so
     * that a wait's own latency does not count), median of 5.
     */
    private static double kernelPassMillis(DeviceContext context, int chunkElements) {
        int probe = 16_384;
        try (DeviceBuffer v = context.allocate(DType.F32, chunkElements); DeviceStream s = context.createStream();
             dev.sluice.DeviceFunction f = context.compile(SPIN)) {
            s.enqueueFill(v, 1f);
            LaunchConfig config = LaunchConfig.forElements(chunkElements);
            s.enqueueLaunch(f, config, v, (long) chunkElements, probe).join(); // warm-up
            double[] t = new double[5];
            for (int r = 0; r < t.length; r++) {
                long t0 = System.nanoTime();
                s.enqueueLaunch(f, config, v, (long) chunkElements, probe).join();
                t[r] = (System.nanoTime() - t0) / 1e6 / probe;
            }
            return median(t);
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
