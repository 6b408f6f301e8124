package dev.sluice.spark;

import dev.sluice.DeviceException;
import dev.sluice.arrow.ArrowPipeline;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Sinks;

/**
 * One task's run of a GPU stage: its device (a reference to the executor's context), a child allocator of the device's
 * pinned memory for its input batches, an {@link ArrowPipeline} whose lanes are the task's while it runs (taken from
 * the device's {@link StagePipelines}, or built), and the iterator of results that the task's thread consumes.
 *
 * <p><b>Threads.</b> Everything that touches the partition's input (Spark's iterators are the task thread's, and may
 * read {@code TaskContext.get()}) runs on the task's thread, inside {@link Results#hasNext()}: it reads the next batch of
 * input only while fewer than {@code lanes + 1} batches are in the pipeline, pushes it, and otherwise waits for the
 * next result, which the device's completion thread hands over through a queue. So at most {@code lanes + 1} batches
 * are in flight, the upload of one overlaps the kernels of another and the download of a third, and a result is
 * converted only as the partition's iterator is consumed.
 *
 * <p><b>End.</b> A task completion listener ({@link #close}), which Spark calls when the task ends however it ends
 * (success, failure, kill), cancels the pipeline's subscription and closes the batches and results it still holds. A
 * task whose results all came back gives the pipeline, with its lanes, graphs and kernels, to the device's
 * {@link StagePipelines} for the stage's next task; any other closes it and waits until its lanes have been released
 * (their device work ended, their device and pinned buffers freed). Then the task's allocator is closed and the device
 * given back. A kill ({@code TaskContext.isInterrupted}, or an
 * interrupt of the task's thread) is noticed within {@link #POLL_MILLIS} while the thread waits for a result.
 */
final class TaskRun implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TaskRun.class.getName());
    /** How often a task waiting for a result checks whether it was killed. */
    static final long POLL_MILLIS = 50;
    /** How long the end of a task waits for its lanes' device work before it gives up on them (and says so). */
    static final long RELEASE_WAIT_SECONDS = 60;

    private static final AtomicInteger LIVE = new AtomicInteger();

    /** A batch in the pipeline: where its rows start in the partition, and how many. */
    private record InFlight(VectorSchemaRoot root, long firstRow, int rows) {
    }

    private final TaskContext task;
    private final StageSpec spec;
    private final ExecutorDevices.Reference device;
    private final BufferAllocator allocator;
    private final ArrowPipeline pipeline;
    private final Sinks.Many<VectorSchemaRoot> input = Sinks.many().unicast().onBackpressureBuffer();
    private final LinkedBlockingQueue<Object> results = new LinkedBlockingQueue<>();
    /** Batches pushed and not yet back, in input order: the pipeline's results come in that order. */
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private final Receiver receiver = new Receiver();
    private final Object lock = new Object();
    /** The pipeline's figures when the task took it: the task's own are what they grew by. */
    private final long replaysBefore;
    private final long buildsBefore;
    /** Whether the task's thread took the pipeline's completion, every result before it (the queue keeps their order). */
    private volatile boolean completed;
    /** Results handed to the task's code and maybe not closed yet; closed at the task's end. Guarded by lock. */
    private final java.util.Set<VectorSchemaRoot> handedOut =
            java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    private boolean closed;

    /** The signal that ends the results: completion, or the pipeline's failure. */
    private record End(@Nullable Throwable failure) {
    }

    private TaskRun(TaskContext task, StageSpec spec, ExecutorDevices.Reference device) {
        this.task = task;
        this.spec = spec;
        this.device = device;
        ExecutorDevices.Device d = device.device();
        if (d.context.isFaulted() || d.context.isClosed()) {
            throw deviceFault(null);
        }
        BufferAllocator a = d.allocator.newChildAllocator("spark-task-" + task.taskAttemptId(), 0, Long.MAX_VALUE);
        ArrowPipeline p;
        try {
            p = d.pipelines.take(spec.id, () -> build(d, spec));
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        this.allocator = a;
        this.pipeline = p;
        this.replaysBefore = p.metrics().graphReplays();
        this.buildsBefore = p.metrics().graphBuilds();
        d.figures.tasksRunning.increment();
        LIVE.incrementAndGet();
        pipeline.process(input.asFlux()).subscribe(receiver);
    }

    /**
     * A pipeline of {@code spec} on {@code d}: its results are vectors of the device's allocator (a pipeline outlives
     * the task that built it, {@link StagePipelines}); the tasks close the results they were given.
     */
    private static ArrowPipeline build(ExecutorDevices.Device d, StageSpec spec) {
        ArrowPipeline.Builder b = ArrowPipeline.builder(d.context, d.allocator).lanes(spec.lanes)
                .capacity(spec.batchRows, spec.maxBatchBytes).stage(spec.deviceWork());
        spec.passThrough.forEach(b::passThrough);
        spec.deviceOutputs().forEach(b::output); // booleans, dates, timestamps as bytes, int32s, int64s
        spec.kernels().forEach(b::kernel);
        return b.build();
    }

    /**
     * Starts the run of {@code spec} in {@code task}, on the task's device, and registers its end with the task.
     *
     * @throws GpuTaskException naming the device if it has a sticky fault
     */
    static TaskRun start(TaskContext task, StageSpec spec) {
        ExecutorDevices.Key key = deviceOf(task, spec);
        ExecutorDevices.Reference ref = ExecutorDevices.acquire(key);
        TaskRun run;
        try {
            run = new TaskRun(task, spec, ref);
        } catch (RuntimeException e) {
            ref.close();
            throw e;
        }
        task.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) t -> run.close());
        return run;
    }

    /**
     * The task's device: the first address of its {@code gpu} resource ({@code spark.task.resource.gpu.amount}), read as
     * a device ordinal; without one, the executor's devices in turn by partition.
     */
    static ExecutorDevices.Key deviceOf(TaskContext task, StageSpec spec) {
        String backend = ExecutorDevices.backend(spec.api);
        ResourceInformation gpu = task.resourcesJMap().get(SluiceSparkPlugin.RESOURCE);
        if (gpu != null && gpu.addresses().length > 0) {
            return new ExecutorDevices.Key(backend, SluiceSparkPlugin.ordinal(gpu.addresses()[0],
                    "the task's resource " + SluiceSparkPlugin.RESOURCE));
        }
        List<Integer> ordinals = ExecutorDevices.ordinals(backend);
        return new ExecutorDevices.Key(backend, ordinals.get(task.partitionId() % ordinals.size()));
    }

    /** The task's device, as messages name it. */
    String deviceName() {
        return device.device().key.toString();
    }

    /** The task's allocator, of the device's pinned memory: input batches are built in it. */
    BufferAllocator allocator() {
        return allocator;
    }

    /** The rows of the partition that a message concerns, with the task and the device. */
    String where(long firstRow, long endRow) {
        return "task " + task.taskAttemptId() + " (stage " + task.stageId() + "." + task.stageAttemptNumber()
                + ", partition " + task.partitionId() + ", attempt " + task.attemptNumber() + "), rows " + firstRow
                + " to " + (endRow - 1) + " of the partition, on device " + deviceName();
    }

    /** The failure of a device with a sticky fault, naming it. */
    private GpuTaskException deviceFault(@Nullable Throwable cause) {
        String name = device.device().key.toString();
        return new GpuTaskException("sluice-spark: device " + name + " of this executor has a sticky fault"
                + " (the context is unusable for good; tasks sent to it fail until the executor is replaced, which"
                + " spark.excludeOnFailure.enabled arranges)" + (cause == null ? "" : ": " + cause.getMessage()),
                cause, true);
    }

    /**
     * The results of {@code batches} (each with the first row it holds), lazily: a batch is read only when the
     * pipeline has room for it. Each result returned is the caller's to close.
     */
    Iterator<VectorSchemaRoot> results(Iterator<InputBatch> batches) {
        return new Results(batches);
    }

    /** A batch of input, built on the task's thread, and the partition's row its first row is. */
    record InputBatch(VectorSchemaRoot root, long firstRow) {
    }

    private final class Results implements Iterator<VectorSchemaRoot> {
        private final Iterator<InputBatch> batches;
        private boolean inputDone;
        private @Nullable VectorSchemaRoot next;
        private boolean ended;

        Results(Iterator<InputBatch> batches) {
            this.batches = batches;
        }

        @Override
        public boolean hasNext() {
            while (next == null && !ended) {
                step();
            }
            return next != null;
        }

        @Override
        public VectorSchemaRoot next() {
            if (!hasNext()) {
                throw new NoSuchElementException("the partition's results are exhausted");
            }
            VectorSchemaRoot r = java.util.Objects.requireNonNull(next);
            next = null;
            return r;
        }

        /** Pushes a batch if there is room, else waits for a result (checking for a kill). */
        private void step() {
            Object signal = results.poll();
            if (signal == null) {
                if (!inputDone && inFlightCount() <= spec.lanes) {
                    push();
                    return;
                }
                signal = await();
                if (signal == null) {
                    return;
                }
            }
            if (signal instanceof End end) {
                ended = true;
                if (end.failure() != null) {
                    throw failure(end.failure());
                }
                completed = true;
                return;
            }
            VectorSchemaRoot result = (VectorSchemaRoot) signal;
            InFlight done;
            synchronized (lock) {
                done = inFlight.pollFirst();
            }
            try {
                if (done != null) {
                    // Its upload has long finished (its result is here); its validity bitmaps give the outputs' nulls.
                    Validity.apply(done.root(), spec.kernelInputs(), result, spec.outputs(), spec.stage == null);
                }
                result = DeviceForm.toDeclared(result, spec.resultFields());
            } catch (RuntimeException e) {
                result.close();
                throw e;
            } finally {
                if (done != null) {
                    done.root().close();
                }
            }
            device.device().figures.batches.increment();
            device.device().figures.rows.add(result.getRowCount());
            handOut(result);
            next = result;
        }

        private void push() {
            // Upstream's exceptions go on as they are: Spark tells a kill, a fetch failure or an error by their type.
            InputBatch b = batches.hasNext() ? batches.next() : null;
            if (b == null) {
                inputDone = true;
                input.emitComplete(Sinks.EmitFailureHandler.busyLooping(java.time.Duration.ofSeconds(5)));
                return;
            }
            synchronized (lock) {
                if (closed) {
                    b.root().close();
                    throw new IllegalStateException("the task's GPU stage has ended");
                }
                inFlight.addLast(new InFlight(b.root(), b.firstRow(), b.root().getRowCount()));
            }
            input.emitNext(b.root(), Sinks.EmitFailureHandler.busyLooping(java.time.Duration.ofSeconds(5)));
        }

        /** The next signal, waiting; null after a poll that found none (the loop then checks for input room again). */
        private @Nullable Object await() {
            try {
                Object s = results.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (s == null && task.isInterrupted()) {
                    task.killTaskIfInterrupted(); // throws TaskKilledException, which Spark reports as the kill
                }
                return s;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                task.killTaskIfInterrupted();
                throw new GpuTaskException("sluice-spark: the task's thread was interrupted while waiting for the device, "
                        + where(firstPending(), endPending()), e, false);
            }
        }
    }

    /** Records a result given to the task's code, forgetting those it has closed since (a closed root holds no memory). */
    private void handOut(VectorSchemaRoot result) {
        synchronized (lock) {
            if (handedOut.size() >= 16) {
                handedOut.removeIf(r -> r.getFieldVectors().stream().allMatch(v -> v.getBufferSize() == 0));
            }
            handedOut.add(result);
        }
    }

    private int inFlightCount() {
        synchronized (lock) {
            return inFlight.size();
        }
    }

    private long firstPending() {
        synchronized (lock) {
            InFlight f = inFlight.peekFirst();
            return f == null ? 0 : f.firstRow();
        }
    }

    private long endPending() {
        synchronized (lock) {
            InFlight l = inFlight.peekLast();
            return l == null ? 0 : l.firstRow() + l.rows();
        }
    }

    /** The pipeline's failure as the task's, naming the rows in flight and the device. */
    private GpuTaskException failure(Throwable t) {
        if (stickyCause(t) != null || device.device().context.isFaulted()) {
            return deviceFault(t);
        }
        long first = firstPending();
        long end = Math.max(first + 1, endPending());
        return new GpuTaskException("sluice-spark: the GPU stage failed, " + where(first, end) + ": " + t, t, false);
    }

    /** The sticky {@link DeviceException} among {@code failure}'s causes (32 deep at most), or null. */
    static @Nullable DeviceException stickyCause(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof DeviceException d && d.isSticky()) {
                return d;
            }
        }
        return null;
    }

    /** Receives the pipeline's results on the completion thread and queues them for the task's thread. */
    private final class Receiver extends BaseSubscriber<VectorSchemaRoot> {
        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            // Unbounded: the task thread bounds what is in flight by what it pushes (lanes + 1 batches).
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        protected void hookOnNext(VectorSchemaRoot value) {
            synchronized (lock) {
                if (!closed) {
                    results.add(value);
                    return;
                }
            }
            value.close(); // the task ended meanwhile
        }

        @Override
        protected void hookOnComplete() {
            results.add(new End(null));
        }

        @Override
        protected void hookOnError(Throwable throwable) {
            results.add(new End(throwable));
        }
    }

    /**
     * Ends the run (the task completion listener): cancels the pipeline's subscription, closes what it holds, gives the
     * pipeline back for the stage's next task if every result came back, else closes it and waits for its lanes to be
     * released, then closes the task's allocator and gives the device back. Idempotent.
     */
    @Override
    public void close() {
        List<VectorSchemaRoot> left = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (InFlight f : inFlight) {
                left.add(f.root());
            }
            inFlight.clear();
            for (Object s : results) {
                if (s instanceof VectorSchemaRoot r) {
                    left.add(r);
                }
            }
            results.clear();
            left.addAll(handedOut); // closing a root twice is harmless: results the task's code kept die with the task
            handedOut.clear();
        }
        ExecutorDevices.Device d = device.device();
        boolean failed = task.isFailed() || task.isInterrupted();
        // The task's thread took the pipeline's completion, which comes after every result it took before: no device
        // work of this task is left on the lanes, and the stage's next task may take them as they are.
        boolean clean = completed && !failed;
        try {
            receiver.dispose(); // cancels: batches on the device finish there and their results are released
            input.tryEmitComplete();
            left.forEach(VectorSchemaRoot::close);
            if (clean) {
                d.pipelines.give(spec.id, pipeline);
            } else {
                pipeline.close(); // and wait for the lanes: the task's device work has ended once they are released
                StagePipelines.awaitReleased(pipeline.released(), RELEASE_WAIT_SECONDS,
                        "the lanes of task " + task.taskAttemptId() + " on " + d.key);
            }
            allocator.close(); // reports input batches left open
        } finally {
            d.figures.graphReplays.add(pipeline.metrics().graphReplays() - replaysBefore);
            d.figures.graphBuilds.add(pipeline.metrics().graphBuilds() - buildsBefore);
            d.figures.tasksRunning.decrement();
            d.figures.tasksEnded.increment();
            if (failed) {
                d.figures.tasksFailed.increment();
            }
            LIVE.decrementAndGet();
            device.close();
        }
    }

    /** Task runs not yet ended in this JVM (for tests: 0 once every task has ended). */
    static int live() {
        return LIVE.get();
    }
}
