package dev.sluice.cpu;

import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.UpdatableGraph;
import dev.sluice.spi.WorkStep;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.support.DispatchingStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A simulated stream: operations run one after another, in order, on a pooled "device" thread, never on
 * the caller's. A gate (a host gate, or a wait on another stream's marker or event) suspends the drain
 * without holding a thread; opening the gate resumes it. After a fault of the context, operations are
 * skipped (a faulted GPU runs nothing more) but markers still resolve, reporting the fault.
 */
final class CpuStream extends DispatchingStream {

    /**
     * The "device threads" that drain streams; each busy stream holds one while it runs an operation. Virtual threads:
     * freeing simulated memory closes a shared arena, which makes every platform thread of the JVM take part in a
     * handshake. With a platform thread per busy drain, a burst of frees slowed the drains, which made more threads,
     * which slowed the frees: seven hundred idle threads after a few thousand short pipelines on a 2-core machine,
     * and a pipeline of one chunk taking more than 5 s (the Reactive Streams TCK's limit). Virtual threads add no
     * platform thread to the handshake but their few carriers.
     */
    private static final ExecutorService DEVICE = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("sluice-cpu-stream-", 0).factory());

    /** One queued operation. Operations other than gates and markers are replayable (for graphs). */
    interface Op {
        void run();
    }

    /** Holds the stream until opened. */
    static final class Gate implements Op, HostGate {
        private final CpuStream stream;
        private volatile boolean open;

        Gate(CpuStream stream) {
            this.stream = stream;
        }

        @Override
        public void run() {
        }

        @Override
        public void open() {
            open = true;
            stream.schedule();
        }
    }

    private final CpuContext context;
    private final ConcurrentLinkedQueue<Op> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private @Nullable List<Op> capture;

    CpuStream(CpuContext context) {
        this.context = context;
    }

    // Operations are submitted under the public layer's stream lock, so appends are in call order.
    private void submit(Op op) {
        if (capture != null) {
            if (op instanceof Gate || op instanceof CpuMarker || op instanceof CpuEvent.Record) {
                throw new UnsupportedOnBackendException("waits, markers and events inside a captured graph are not supported on cpu");
            }
            capture.add(op);
            return;
        }
        queue.add(op);
        schedule();
    }

    void schedule() {
        if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
            DEVICE.execute(this::drain);
        }
    }

    private void drain() {
        while (true) {
            Op op = queue.peek();
            if (op == null) {
                break;
            }
            if (op instanceof Gate g && !g.open) {
                scheduled.set(false);
                if (g.open) {
                    schedule(); // opened between the check and the release
                }
                return;
            }
            CpuFaults faults = context.faults;
            if (faults != null && faults.holds(this)) {
                // A stalled device (injected): the release schedules this stream again.
                scheduled.set(false);
                if (!faults.holds(this)) {
                    schedule(); // released between the check and the release of the drain
                }
                return;
            }
            queue.poll();
            if (op instanceof CpuMarker || op instanceof Gate || op instanceof CpuEvent.Record || op instanceof Free) {
                op.run(); // resolve even after a fault, so that waiters see it; frees release memory all the same
            } else if (!context.isFaulted()) {
                try {
                    op.run();
                } catch (Throwable t) {
                    context.fault(t);
                }
            }
        }
        scheduled.set(false);
        schedule();
    }

    /** Frees device memory in stream order; runs even after a fault, as a faulted GPU's memory is still released. */
    private record Free(CpuContext context, DeviceMemory memory) implements Op {
        @Override
        public void run() {
            context.free(memory);
        }
    }

    // ---------------------------------------------------------------- copies and fills

    private void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long bytes) {
        CpuFaults faults = context.faults;
        if (faults != null) {
            faults.beforeCopy(bytes);
        }
        MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
    }

    @Override
    public void copyHostToDevice(MemorySegment source, DeviceMemory destination, long destinationOffset, long bytes) {
        MemorySegment dst = ((CpuMemory) destination).segment;
        submit(() -> copy(source, 0, dst, destinationOffset, bytes));
    }

    @Override
    public void copyDeviceToHost(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes) {
        MemorySegment src = ((CpuMemory) source).segment;
        submit(() -> copy(src, sourceOffset, destination, 0, bytes));
    }

    @Override
    public void copyDeviceToDevice(DeviceMemory source, long sourceOffset, DeviceMemory destination, long destinationOffset, long bytes) {
        MemorySegment src = ((CpuMemory) source).segment;
        MemorySegment dst = ((CpuMemory) destination).segment;
        submit(() -> copy(src, sourceOffset, dst, destinationOffset, bytes));
    }

    /** One fault check for the whole rectangle, as a GPU's 2-D copy is one operation; then one copy per row. */
    private void copy2D(MemorySegment src, long srcOffset, long srcPitch, MemorySegment dst, long dstOffset, long dstPitch,
            long widthBytes, long height) {
        CpuFaults faults = context.faults;
        if (faults != null) {
            faults.beforeCopy(widthBytes * height);
        }
        for (long row = 0; row < height; row++) {
            MemorySegment.copy(src, srcOffset + row * srcPitch, dst, dstOffset + row * dstPitch, widthBytes);
        }
    }

    @Override
    public void copyHostToDevice2D(MemorySegment source, long sourcePitch, DeviceMemory destination, long destinationOffset,
            long destinationPitch, long widthBytes, long height) {
        MemorySegment dst = ((CpuMemory) destination).segment;
        submit(() -> copy2D(source, 0, sourcePitch, dst, destinationOffset, destinationPitch, widthBytes, height));
    }

    @Override
    public void copyDeviceToHost2D(DeviceMemory source, long sourceOffset, long sourcePitch, MemorySegment destination,
            long destinationPitch, long widthBytes, long height) {
        MemorySegment src = ((CpuMemory) source).segment;
        submit(() -> copy2D(src, sourceOffset, sourcePitch, destination, 0, destinationPitch, widthBytes, height));
    }

    @Override
    public void copyDeviceToDevice2D(DeviceMemory source, long sourceOffset, long sourcePitch, DeviceMemory destination,
            long destinationOffset, long destinationPitch, long widthBytes, long height) {
        MemorySegment src = ((CpuMemory) source).segment;
        MemorySegment dst = ((CpuMemory) destination).segment;
        submit(() -> copy2D(src, sourceOffset, sourcePitch, dst, destinationOffset, destinationPitch, widthBytes, height));
    }

    @Override
    public void copyPeer(ContextHandle sourceContext, DeviceMemory source, long sourceOffset, ContextHandle destinationContext,
            DeviceMemory destination, long destinationOffset, long bytes) {
        copyDeviceToDevice(source, sourceOffset, destination, destinationOffset, bytes);
    }

    @Override
    public void fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits) {
        MemorySegment dst = ((CpuMemory) destination).segment.asSlice(offset, count * elementBytes);
        submit(() -> fill(dst, count, elementBytes, bits));
    }

    static void fill(MemorySegment dst, long count, int elementBytes, long bits) {
        switch (elementBytes) {
            case 1 -> dst.fill((byte) bits);
            case 2 -> {
                for (long i = 0; i < count; i++) {
                    dst.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) bits);
                }
            }
            case 4 -> {
                for (long i = 0; i < count; i++) {
                    dst.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) bits);
                }
            }
            case 8 -> {
                for (long i = 0; i < count; i++) {
                    dst.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, bits);
                }
            }
            default -> throw new IllegalArgumentException("element size " + elementBytes);
        }
    }

    // ---------------------------------------------------------------- memory

    @Override
    public DeviceMemory allocate(long bytes) {
        return context.allocate(bytes);
    }

    @Override
    public void free(DeviceMemory memory) {
        if (capture != null) {
            throw new UnsupportedOnBackendException("freeing memory inside a captured graph is not supported on cpu");
        }
        submit(new Free(context, memory));
    }

    // ---------------------------------------------------------------- kernels

    @Override
    public void launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments) {
        // The arguments object is reused by the next launch: take what the kernel needs now.
        submit(new GridRun((CpuFunction) function, config, arguments, context.faults));
    }

    // ---------------------------------------------------------------- events, markers, gates

    @Override
    public void record(EventHandle event) {
        submit(((CpuEvent) event).newRecord());
    }

    @Override
    public void waitEvent(EventHandle event) {
        CompletableFuture<Long> point = ((CpuEvent) event).lastPoint();
        if (point != null && !point.isDone()) {
            gateOn(point);
        }
    }

    @Override
    public Marker recordMarker() {
        CpuMarker m = new CpuMarker(context);
        submit(m);
        return m;
    }

    @Override
    public void waitMarker(Marker marker) {
        CpuMarker m = (CpuMarker) marker;
        if (!m.reached().isDone()) {
            gateOn(m.reached());
        }
    }

    private void gateOn(CompletableFuture<?> condition) {
        if (capture != null) {
            throw new UnsupportedOnBackendException("waits inside a captured graph are not supported on cpu");
        }
        Gate g = new Gate(this);
        submit(g);
        condition.whenComplete((v, e) -> g.open());
    }

    @Override
    public HostGate enqueueHostGate() {
        Gate g = new Gate(this);
        submit(g);
        return g;
    }

    @Override
    public void synchronize() {
        CpuMarker m = new CpuMarker(context);
        queue.add(m);
        schedule();
        m.reached().join();
    }

    // ---------------------------------------------------------------- graphs

    @Override
    public void beginCapture() {
        capture = new ArrayList<>();
    }

    /** A host step of a graph: runs on this simulator's stream thread, as a host node runs on the driver's thread. */
    private record HostStep(Runnable step) implements Op {
        @Override
        public void run() {
            step.run();
        }
    }

    @Override
    public void captureHostStep(Runnable step) {
        if (capture == null) {
            throw new IllegalStateException("internal: a host step outside capture");
        }
        capture.add(new HostStep(step));
    }

    @Override
    public GraphHandle endCapture() {
        List<Op> ops = List.copyOf(capture == null ? List.of() : capture);
        capture = null;
        return new GraphHandle() {
            /** Reached when the last replay launched has run: the next waits for it, as CUDA orders launches of one graph. */
            private @Nullable CompletableFuture<?> lastReplay;

            @Override
            public synchronized void launch(StreamHandle stream) {
                CpuStream s = (CpuStream) stream;
                if (s.capture != null) { // launched while capturing: its operations join the other graph
                    for (Op op : ops) {
                        s.submit(op);
                    }
                    return;
                }
                CompletableFuture<?> previous = lastReplay;
                if (previous != null && !previous.isDone()) {
                    s.gateOn(previous);
                }
                for (Op op : ops) {
                    s.submit(op);
                }
                CpuMarker done = new CpuMarker(context); // a marker: reached even after a fault, so no replay waits for ever
                s.submit(done);
                lastReplay = done.reached();
            }

            @Override
            public void destroy() {
            }
        };
    }

    /**
     * Repeated work's graph on the simulator: its steps, which each launch queues as one operation that the stream's
     * thread runs with the values of the last update, as a device runs an updated executable graph.
     */
    static final class ReplayGraph implements UpdatableGraph {
        /** Read by each launch, so an update changes later launches only. */
        private volatile List<WorkStep> steps;

        ReplayGraph(List<WorkStep> steps) {
            this.steps = List.copyOf(steps);
        }

        @Override
        public boolean update(List<WorkStep> newSteps) {
            steps = List.copyOf(newSteps);
            return true;
        }

        @Override
        public void launch(StreamHandle stream) {
            ((CpuStream) stream).replay(steps);
        }

        @Override
        public void destroy() {
            // Nothing native: queued launches keep the steps they took.
        }
    }

    /** Queues {@code steps} as one operation: the stream's thread runs them in order, one launch of a graph. */
    private void replay(List<WorkStep> steps) {
        List<Op> saved = capture;
        List<Op> ops = new ArrayList<>(steps.size());
        capture = ops; // each step's enqueue adds its operation here instead of queueing it
        try {
            for (WorkStep step : steps) {
                enqueue(step);
            }
        } finally {
            capture = saved;
        }
        submit(() -> {
            for (Op op : ops) {
                op.run();
            }
        });
    }

    @Override
    public void destroy() {
        // Nothing native to release; the public layer synchronised first.
    }
}
