package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.reactive.ChunkSource;
import dev.sluice.reactive.ChunkTarget;
import dev.sluice.reactive.GpuPipeline;
import dev.sluice.reactive.Lane;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * A {@link GpuPipeline} over Arrow record batches: each {@link VectorSchemaRoot} of a {@code Flux} is one chunk, its
 * columns (validity bitmaps, offsets and values) are uploaded into a lane's device buffer, a {@link Stage} reads them
 * and writes the result's columns on the device, and each result comes back as a new {@code VectorSchemaRoot} whose
 * vectors are memory of a {@link PinnedAllocationFactory} allocator, downloaded into by DMA: no Java array and no
 * staging buffer per batch.
 *
 * <pre>{@code
 * try (RootAllocator allocator = PinnedAllocationFactory.of(ctx).newRootAllocator(Long.MAX_VALUE);
 *      ArrowPipeline pipeline = ArrowPipeline.builder(ctx, allocator)
 *          .capacity(1 << 16, 1 << 20)                      // the largest batch: rows, bytes of its column buffers
 *          .passThrough("name")                             // an input column, copied into the result on the device
 *          .output(Field.nullable("y", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
 *          .kernel(FMA)
 *          .stage((lane, in, out) -> lane.stream().enqueueLaunch(lane.function(FMA),
 *                  LaunchConfig.forElements(in.rowCount()), in.column("a").data(), in.column("b").data(),
 *                  out.column("y").data(), (long) in.rowCount()))
 *          .build()) {
 *     pipeline.process(batches).doOnNext(result -> { ...; result.close(); }).blockLast();
 * }
 * }</pre>
 *
 * <p>The result of a batch has the pass-through columns and the output columns, in the order declared, and the batch's
 * row count. The stage sees the batch's columns ({@code in}) and the result's ({@code out}) as {@link DeviceBatch}es
 * of views of the lane's buffers (nothing to close): a column's {@link DeviceColumn#validity()} (bit {@code i % 8} of
 * byte {@code i / 8}, null where the input vector has no bitmap), {@link DeviceColumn#offsets()} and
 * {@link DeviceColumn#data()}. A nullable output column has a bitmap the stage must write; a non-nullable one comes back
 * all valid. Pass-through columns are in {@code out} already, copied on the device before the stage runs. For a batch
 * of 0 rows the stage is not called; its result, of 0 rows, still comes in its place.
 *
 * <ul>
 * <li><b>Ordering:</b> {@link #process} emits results in the order of the batches; {@link #processUnordered} as each is
 * ready. Back-pressure as {@link GpuPipeline}'s: at most {@code lanes} batches are in the pipeline beyond the
 * results requested.
 * <li><b>Completion thread:</b> as {@link GpuPipeline}'s: results are emitted on the context's completion thread or the
 * requesting thread; the stage runs on the thread that enqueues. Nothing blocks.
 * <li><b>Cancellation:</b> cancels upstream; batches already on the device finish there and their results are
 * released (their pinned memory goes back once the downloads into it have finished); nothing leaks.
 * <li><b>Resources:</b> the caller owns the input batches and closes them; from the moment the pipeline receives a
 * batch until its buffers have been copied into the lane's staging buffer or, for a batch of pinned memory, its copies
 * to the device have been enqueued, it holds a reference to each of its buffers, so a batch may be closed, or a
 * reader's root reloaded with the next batch, as soon as it has been emitted upstream. The pinned memory of a batch closed while its upload is in flight is reused
 * or freed only once the upload has finished ({@link PinnedAllocationFactory}'s pool waits for it as Sluice's rule for
 * host buffers does; Arrow's accounting shows it released at once). Do not
 * write into a batch's buffers until its result has been emitted: the device may still be reading them. The
 * subscriber owns each result and must close it (it is memory of {@code allocator}, whose close reports unclosed
 * results as leaks). Close the pipeline (its lanes, as {@link GpuPipeline#close()}) before the allocator's context.
 * <li><b>Errors:</b> a bad batch (null, without columns, whose columns differ in length, a closed vector, a column of
 * an unsupported type, two columns of one name, pinned memory that its closed context freed, more rows or bytes than
 * the {@link Builder#capacity capacity}, lacking a pass-through column)
 * fails the {@code Flux} with an {@link InvalidArgumentException} naming {@code batch}, as does an exception the stage
 * throws or a failed operation on the device (with that exception), once the batches in flight have drained; their
 * results are released, not emitted.
 * </ul>
 *
 * <p>A batch whose buffers are all memory of a {@link PinnedAllocationFactory} allocator (of this context, or of one
 * whose pinned memory it {@linkplain DeviceContext#sharesPinnedMemoryWith can use}) is uploaded straight from them, one
 * copy per validity, offsets and data buffer, with no host copy and no staging buffer. A batch with any other buffer
 * (Arrow's default allocator, say) is copied whole (one host copy) into the lane's pinned staging buffer and uploaded
 * from there. Results need no host copy. Thread-safe as {@link GpuPipeline}.
 */
public final class ArrowPipeline implements AutoCloseable {

    /** The device work of one batch, enqueued on the lane's stream between the upload and the download. */
    @FunctionalInterface
    public interface Stage {

        /**
         * Enqueues the kernels that read {@code in} (the batch's columns) and write {@code out} (the result's), both of
         * {@code in.rowCount()} rows (at least 1), on {@link Lane#stream()}; must only enqueue, never wait.
         *
         * @return the future of the last operation enqueued, or null (as {@link GpuPipeline.Stage#enqueue})
         */
        @Nullable DeviceFuture<?> enqueue(Lane lane, DeviceBatch in, DeviceBatch out);
    }

    /** A column of the result: computed by the stage (fixed-width {@code type}) or passed through from the input. */
    record Output(Field field, @Nullable DType type, boolean passThrough) {
    }

    private final GpuPipeline<Job, HostBuffer> pipeline;
    private final BufferAllocator allocator;
    private final List<Output> outputs;
    private final int maxRows;
    private final long maxBatchBytes;

    private ArrowPipeline(Builder b, Stage stage) {
        this.allocator = b.allocator;
        this.outputs = List.copyOf(b.outputs);
        this.maxRows = b.maxRows;
        this.maxBatchBytes = b.maxBatchBytes;
        long capacity = BatchLayout.outputCapacity(outputs, maxRows, maxBatchBytes);
        GpuPipeline.Builder g = GpuPipeline.builder(b.context).lanes(b.lanes).chunkElements(maxBatchBytes, DType.U8)
                .output(DType.U8, n -> capacity)
                .stage((lane, in, out) -> enqueue(stage, lane, in, out));
        b.kernels.forEach(g::kernel);
        this.pipeline = g.buildInto(SOURCE, new Target());
    }

    /**
     * Starts describing a pipeline on {@code context} whose results are vectors of {@code allocator}.
     *
     * @throws InvalidArgumentException naming {@code context} if it is null or closed, or {@code allocator} if it is null,
     *                                  closed, cannot allocate a byte (its limit), or is not an allocator of a
     *                                  {@link PinnedAllocationFactory} of {@code context}
     */
    public static Builder builder(DeviceContext context, BufferAllocator allocator) {
        ArrowColumns.checkContext(context);
        if (allocator == null) {
            throw new InvalidArgumentException("allocator", "must not be null");
        }
        // Arrow has no public way to ask an allocator for its factory, so one byte is allocated (and freed) to see it.
        ArrowBuf probe;
        try {
            probe = allocator.buffer(1);
        } catch (IllegalStateException | org.apache.arrow.memory.OutOfMemoryException e) {
            InvalidArgumentException refused = new InvalidArgumentException("allocator", allocator.getName()
                    + (e instanceof IllegalStateException ? " is closed" : " cannot allocate a byte (limit "
                            + allocator.getLimit() + ", " + allocator.getAllocatedMemory() + " bytes allocated)")
                    + "; results are downloaded into its memory");
            refused.addSuppressed(e); // Arrow's own report (an InvalidArgumentException has no cause)
            throw refused;
        }
        try (probe) {
            HostBuffer pinned = PinnedAllocationFactory.pinnedBytes(probe);
            if (pinned == null || pinned.context() != context) {
                // Two contexts of one device print alike: say which it is.
                String of = pinned == null ? "" : pinned.context().toString().equals(context.toString())
                        ? "another context of the same device (" + pinned.context() + ")" : pinned.context().toString();
                throw new InvalidArgumentException("allocator", allocator.getName() + (pinned == null
                        ? " is not an allocator of a PinnedAllocationFactory" : " allocates pinned memory of " + of
                                + ", not of " + context) + "; results are downloaded into its memory");
            }
        }
        return new Builder(context, allocator);
    }

    /**
     * The results of {@code batches}, in input order. Cold: each subscription runs the batches it receives. See the
     * class description for ordering, threads, cancellation, resources and errors. Subscribing after {@link #close()}
     * fails the {@code Flux} with a {@link dev.sluice.ClosedResourceException}, taking no batch.
     *
     * @throws InvalidArgumentException naming {@code batches} if it is null
     */
    public Flux<VectorSchemaRoot> process(Publisher<? extends VectorSchemaRoot> batches) {
        return run(batches, true);
    }

    /**
     * As {@link #process}, but each result is emitted as soon as it is ready, whatever its input position.
     *
     * @throws InvalidArgumentException naming {@code batches} if it is null
     */
    public Flux<VectorSchemaRoot> processUnordered(Publisher<? extends VectorSchemaRoot> batches) {
        return run(batches, false);
    }

    private Flux<VectorSchemaRoot> run(Publisher<? extends VectorSchemaRoot> batches, boolean ordered) {
        if (batches == null) {
            throw new InvalidArgumentException("batches", "must not be null");
        }
        return Flux.defer(() -> {
            Results results = new Results();
            Flux<Job> jobs = Flux.from(batches)
                    .map(batch -> Job.of(batch, BatchLayout.of(batch, outputs, maxRows, maxBatchBytes), results));
            Flux<HostBuffer> done = ordered ? pipeline.process(jobs) : pipeline.processUnordered(jobs);
            return done.<VectorSchemaRoot>handle((view, sink) -> {
                        VectorSchemaRoot root = results.take(view);
                        if (root != null) {
                            sink.next(root);
                        } // else the subscription ended while this result was on its way: its memory was released
                    })
                    .doFinally(signal -> results.close())
                    .doOnDiscard(Job.class, Job::discard); // batches the pipeline dropped before copying them
        });
    }

    /** The pass-through copies and the caller's stage. */
    private @Nullable DeviceFuture<?> enqueue(Stage stage, Lane lane, DeviceBuffer in, DeviceBuffer out) {
        Job job = (Job) Objects.requireNonNull(lane.chunk());
        BatchLayout layout = job.layout;
        if (layout.rows() == 0) {
            return null;
        }
        for (int k = 0; k < outputs.size(); k++) {
            if (outputs.get(k).passThrough()) {
                BatchLayout.Segment o = layout.output().get(k);
                BatchLayout.Segment i = layout.input(o.field().getName());
                long bytes = i.end() - i.validityAt(); // the same buffers, laid out alike
                lane.stream().enqueueCopy(in.slice(i.validityAt(), bytes), out.slice(o.validityAt(), bytes));
            }
        }
        return stage.enqueue(lane, layout.deviceInput(in), layout.deviceOutput(out));
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return pipeline.isClosed();
    }

    /** The underlying pipeline's counters of allocations, releases and chunks (batches). */
    public dev.sluice.reactive.PipelineMetrics metrics() {
        return pipeline.metrics();
    }

    /** Completes once the pipeline is closed and its lanes are released (as {@link GpuPipeline#released()}). */
    public CompletableFuture<Void> released() {
        return pipeline.released();
    }

    /** Releases the lanes, as {@link GpuPipeline#close()}; never blocks. Results already emitted stay the subscriber's. */
    @Override
    public void close() {
        pipeline.close();
    }

    @Override
    public String toString() {
        return "ArrowPipeline[" + maxRows + " rows, " + maxBatchBytes + " bytes per batch -> " + outputs.stream()
                .map(o -> o.field().getName() + (o.passThrough() ? " (passed through)" : "")).toList() + ", " + pipeline + "]";
    }

    // ---------------------------------------------------------------- batches as chunks

    /**
     * One batch in the pipeline: its layout, and references to its buffers until they are uploaded from their pinned
     * memory or copied into staging.
     */
    static final class Job {
        private static final int HELD = 0;
        private static final int COPYING = 1;
        private static final int RELEASED = 2;

        final BatchLayout layout;
        final Results results;
        /** Per input column, its validity, offsets and data buffers (null where it has none), referenced. */
        private final List<@Nullable ArrowBuf> buffers;
        private final AtomicInteger state = new AtomicInteger(HELD);

        private Job(BatchLayout layout, Results results, List<@Nullable ArrowBuf> buffers) {
            this.layout = layout;
            this.results = results;
            this.buffers = buffers;
        }

        static Job of(VectorSchemaRoot batch, BatchLayout layout, Results results) {
            List<@Nullable ArrowBuf> buffers = new ArrayList<>(3 * layout.input().size());
            List<FieldVector> vectors = batch.getFieldVectors();
            for (int c = 0; c < vectors.size(); c++) {
                FieldVector v = vectors.get(c);
                BatchLayout.Segment s = layout.input().get(c);
                buffers.add(s.validityBytes() > 0 ? v.getValidityBuffer() : null);
                buffers.add(s.offsetBytes() > 0 ? v.getOffsetBuffer() : null);
                buffers.add(s.dataBytes() > 0 ? v.getDataBuffer() : null);
            }
            // Read from these, not from the vectors, when copying: a reader's root may hold the next batch by then.
            for (ArrowBuf b : buffers) {
                if (b != null) {
                    b.getReferenceManager().retain();
                }
            }
            return new Job(layout, results, buffers);
        }

        /**
         * Uploads the buffers straight from their pinned memory into their places in {@code in}, one copy each, where
         * every one of them is memory of a {@link PinnedAllocationFactory} that {@code stream}'s context can use, then
         * lets them go: the pinned memory stays allocated until the copies have finished (Sluice's rule for host
         * buffers), whoever releases the batch meanwhile. Null, having enqueued nothing, where a buffer is other memory:
         * the whole batch is then staged ({@link #copyTo}).
         */
        @Nullable DeviceFuture<?> uploadPinned(DeviceStream stream, DeviceBuffer in) {
            if (!allPinnedFor(stream.context())) {
                return null;
            }
            if (!state.compareAndSet(HELD, COPYING)) {
                throw new IllegalStateException("the batch's buffers were released before its upload");
            }
            try {
                DeviceFuture<?> last = null;
                for (int c = 0; c < layout.input().size(); c++) {
                    BatchLayout.Segment s = layout.input().get(c);
                    long[] at = {s.validityAt(), s.offsetsAt(), s.dataAt()};
                    long[] bytes = {s.validityBytes(), s.offsetBytes(), s.dataBytes()};
                    for (int k = 0; k < 3; k++) {
                        ArrowBuf b = buffers.get(3 * c + k);
                        if (b != null) {
                            HostBuffer pinned = Objects.requireNonNull(PinnedAllocationFactory.pinnedBytes(b));
                            HostBuffer piece = pinned.slice(b.memoryAddress() - pinned.segment().address(), bytes[k]);
                            last = stream.enqueueCopy(piece, in.slice(at[k], bytes[k]));
                        }
                    }
                }
                return last != null ? last : stream.enqueueMarker(); // a batch of 0 rows has no buffers
            } finally {
                state.set(RELEASED);
                release();
            }
        }

        /**
         * Whether every buffer of the batch is memory of a {@link PinnedAllocationFactory} that {@code context} can use.
         * Reads no memory, so it is safe while the pipeline may be letting the buffers go ({@link #discard}).
         */
        private boolean allPinnedFor(DeviceContext context) {
            for (ArrowBuf b : buffers) {
                HostBuffer pinned = b == null ? null : PinnedAllocationFactory.pinnedBytes(b);
                if (b != null && (pinned == null || !context.sharesPinnedMemoryWith(pinned.context()))) {
                    return false;
                }
            }
            return true;
        }

        /** Copies the buffers into {@code staging} at their places, then lets them go. */
        void copyTo(MemorySegment staging) {
            if (!state.compareAndSet(HELD, COPYING)) {
                throw new IllegalStateException("the batch's buffers were released before its copy");
            }
            try {
                for (int c = 0; c < layout.input().size(); c++) {
                    BatchLayout.Segment s = layout.input().get(c);
                    copy(buffers.get(3 * c), s.validityAt(), s.validityBytes(), staging);
                    copy(buffers.get(3 * c + 1), s.offsetsAt(), s.offsetBytes(), staging);
                    copy(buffers.get(3 * c + 2), s.dataAt(), s.dataBytes(), staging);
                }
            } finally {
                state.set(RELEASED);
                release();
            }
        }

        private static void copy(@Nullable ArrowBuf from, long at, long bytes, MemorySegment staging) {
            if (from != null && bytes > 0) {
                MemorySegment.copy(MemorySegment.ofAddress(from.memoryAddress()).reinterpret(bytes), 0, staging, at, bytes);
            }
        }

        /** The pipeline dropped the batch (cancellation, error): lets its buffers go unless a copy is reading them. */
        void discard() {
            if (state.compareAndSet(HELD, RELEASED)) {
                release();
            }
        }

        private void release() {
            for (ArrowBuf b : buffers) {
                if (b != null) {
                    b.getReferenceManager().release();
                }
            }
        }
    }

    private static final ChunkSource<Job> SOURCE = new ChunkSource<>() {
        @Override
        public boolean accepts(DType type) {
            return type == DType.U8;
        }

        @Override
        public long elements(Job job, DType type) {
            return job.layout.inputBytes();
        }

        @Override
        public void copyTo(Job job, MemorySegment staging) {
            job.copyTo(staging);
        }

        @Override
        public @Nullable DeviceFuture<?> enqueueUpload(Job job, DeviceStream stream, DeviceBuffer in) {
            return job.uploadPinned(stream, in);
        }

        @Override
        public String toString() {
            return "ArrowPipeline's record batches";
        }
    };

    /** Each result is downloaded into a new buffer of the pinned allocator, which its vectors then slice. */
    private final class Target implements ChunkTarget<Job> {
        @Override
        public long resultElements(Job job, long sequence, long elements) {
            return job.layout.outputBytes();
        }

        @Override
        public HostBuffer bufferFor(Job job, long sequence, long elements) {
            ArrowBuf body = allocator.buffer(elements);
            HostBuffer pinned = Objects.requireNonNull(PinnedAllocationFactory.pinnedBytes(body));
            HostBuffer view = pinned.slice(body.memoryAddress() - pinned.segment().address(), elements);
            job.results.add(view, body, job.layout);
            return view;
        }
    }

    /**
     * The result buffers of one subscription, by the view the pipeline emits, until each is made into a batch; those
     * left when the subscription ends (cancelled, failed) are released then.
     */
    final class Results {
        private record Pending(ArrowBuf body, BatchLayout layout) {
        }

        private final Map<HostBuffer, Pending> pending = new IdentityHashMap<>();
        private boolean closed;

        synchronized void add(HostBuffer view, ArrowBuf body, BatchLayout layout) {
            if (closed) {
                body.close();
                throw new CancellationException("the subscription has ended");
            }
            pending.put(view, new Pending(body, layout));
        }

        /** The result downloaded into {@code view}; null once the subscription has ended (cancelled) and let it go. */
        @org.jspecify.annotations.Nullable VectorSchemaRoot take(HostBuffer view) {
            Pending p;
            synchronized (this) {
                p = pending.remove(view);
                if (p == null && closed) {
                    return null;
                }
            }
            if (p == null) {
                throw new IllegalStateException("no result for " + view);
            }
            try (ArrowBuf body = p.body()) { // the vectors hold references of their own
                List<Field> fields = new ArrayList<>(p.layout().output().size());
                List<FieldVector> vectors = new ArrayList<>(fields.size());
                try {
                    for (BatchLayout.Segment s : p.layout().output()) {
                        fields.add(s.field());
                        vectors.add(s.load(body, p.layout().rows(), allocator));
                    }
                } catch (RuntimeException e) {
                    vectors.forEach(FieldVector::close);
                    throw e;
                }
                return new VectorSchemaRoot(fields, vectors, p.layout().rows());
            }
        }

        /** Releases the results not taken: their pinned memory goes back once the downloads into it have finished. */
        void close() {
            List<Pending> left;
            synchronized (this) {
                closed = true;
                left = new ArrayList<>(pending.values());
                pending.clear();
            }
            left.forEach(p -> p.body().close());
        }
    }

    /** Describes an {@link ArrowPipeline}. Not thread-safe. */
    public static final class Builder {
        private final DeviceContext context;
        private final BufferAllocator allocator;
        private final List<Output> outputs = new ArrayList<>();
        private final Set<Kernel> kernels = new LinkedHashSet<>();
        private int lanes = 3;
        private int maxRows;
        private long maxBatchBytes;
        private @Nullable Stage stage;

        private Builder(DeviceContext context, BufferAllocator allocator) {
            this.context = context;
            this.allocator = allocator;
        }

        /** Lanes (streams with their own device buffers), as {@link GpuPipeline.Builder#lanes}; default 3. */
        public Builder lanes(int n) {
            if (n < 1 || n > GpuPipeline.MAX_LANES) {
                throw new InvalidArgumentException("lanes", "value " + n + " is outside 1 to " + GpuPipeline.MAX_LANES);
            }
            this.lanes = n;
            return this;
        }

        /**
         * The largest batch: {@code maxRows} rows and {@code maxBatchBytes} bytes of column buffers (validity, offsets
         * and values, each rounded up to 64 bytes). Sizes each lane's device buffers; a larger batch fails the
         * {@code Flux} naming {@code batch}.
         *
         * @throws InvalidArgumentException naming {@code maxRows} or {@code maxBatchBytes} if not positive
         */
        public Builder capacity(int maxRows, long maxBatchBytes) {
            if (maxRows < 1) {
                throw new InvalidArgumentException("maxRows", "value " + maxRows + " must be at least 1");
            }
            if (maxBatchBytes < BatchLayout.ALIGN) {
                throw new InvalidArgumentException("maxBatchBytes", "value " + maxBatchBytes + " must be at least "
                        + BatchLayout.ALIGN);
            }
            this.maxRows = maxRows;
            this.maxBatchBytes = maxBatchBytes;
            return this;
        }

        /**
         * A column of the result that the stage writes: a fixed-width type ({@link ArrowColumns#elementType}), with a
         * validity bitmap for the stage to write if the field is nullable.
         *
         * @throws InvalidArgumentException naming {@code field} if it is null, of a type that is not fixed-width or has no
         *                                  Sluice element type, or its name is taken
         */
        public Builder output(Field field) {
            if (field == null) {
                throw new InvalidArgumentException("field", "must not be null");
            }
            DType type = ColumnLayout.elementType(field.getType());
            if (type == null || ColumnLayout.offsetType(field.getType()) != null) {
                throw new InvalidArgumentException("field", field + " is not a fixed-width column of a type Sluice has an"
                        + " element type for; an output column is Int (8 to 64 bits) or FloatingPoint");
            }
            return add(new Output(field, type, false), "field");
        }

        /**
         * A column of each batch, of any supported type (variable-width ones included, as offsets and bytes), copied
         * into the result on the device before the stage runs; the stage may read or overwrite it in {@code out}.
         *
         * @throws InvalidArgumentException naming {@code column} if it is null or its name is taken
         */
        public Builder passThrough(String column) {
            if (column == null) {
                throw new InvalidArgumentException("column", "must not be null");
            }
            return add(new Output(Field.nullable(column, new org.apache.arrow.vector.types.pojo.ArrowType.Null()), null,
                    true), "column");
        }

        private Builder add(Output o, String argument) {
            for (Output e : outputs) {
                if (e.field().getName().equals(o.field().getName())) {
                    throw new InvalidArgumentException(argument, "the result already has a column " + o.field().getName());
                }
            }
            outputs.add(o);
            return this;
        }

        /**
         * A kernel the stage launches, loaded on the context at build ({@link GpuPipeline.Builder#kernel}).
         *
         * @throws InvalidArgumentException naming {@code kernel} if it is null
         */
        public Builder kernel(Kernel kernel) {
            if (kernel == null) {
                throw new InvalidArgumentException("kernel", "must not be null");
            }
            kernels.add(kernel);
            return this;
        }

        /**
         * The device work of each batch.
         *
         * @throws InvalidArgumentException naming {@code stage} if it is null
         */
        public Builder stage(Stage stage) {
            if (stage == null) {
                throw new InvalidArgumentException("stage", "must not be null");
            }
            this.stage = stage;
            return this;
        }

        /**
         * The pipeline. Allocates nothing yet: each lane's buffers are allocated when a subscription first needs it.
         *
         * @throws InvalidArgumentException naming {@code capacity}, {@code output} or {@code stage} if not set, or
         *                                  {@code maxBatchBytes} or {@code maxRows} where the lanes' device buffers for
         *                                  that capacity would take more than the device's total memory
         */
        public ArrowPipeline build() {
            if (maxRows == 0) {
                throw new InvalidArgumentException("capacity", "not set: call capacity(maxRows, maxBatchBytes)");
            }
            if (outputs.isEmpty()) {
                throw new InvalidArgumentException("output", "the result has no column: call output(...) or passThrough(...)");
            }
            if (stage == null) {
                throw new InvalidArgumentException("stage", "not set: call stage(...)");
            }
            checkFits();
            return new ArrowPipeline(this, stage);
        }

        /**
         * Refuses a capacity whose lane buffers (a batch's bytes in, a result's bytes out, per lane) exceed the device's
         * total memory: no allocation could succeed, and the first subscription would fail only then. The sums saturate
         * at {@code Long.MAX_VALUE}, so that no size overflows into a small one.
         */
        private void checkFits() {
            long total = context.memoryInfo().total();
            long result = BatchLayout.outputCapacity(outputs, maxRows, maxBatchBytes);
            long lanesBytes = BatchLayout.saturatedMultiply(lanes, BatchLayout.saturatedAdd(maxBatchBytes, result));
            if (total <= 0 || lanesBytes <= total) {
                return; // a backend that reports no total (0) is not second-guessed
            }
            boolean passes = outputs.stream().anyMatch(Output::passThrough);
            long byBytes = BatchLayout.saturatedMultiply(lanes, passes ? BatchLayout.saturatedAdd(maxBatchBytes,
                    maxBatchBytes) : maxBatchBytes);
            String argument = byBytes > total / 2 ? "maxBatchBytes" : "maxRows";
            throw new InvalidArgumentException(argument, "value " + (argument.equals("maxRows") ? maxRows : maxBatchBytes)
                    + ": " + lanes + " lane(s) of a batch of up to " + maxBatchBytes + " bytes and a result of up to "
                    + result + " bytes (" + maxRows + " rows) take " + (lanesBytes == Long.MAX_VALUE ? "more than "
                            + Long.MAX_VALUE : lanesBytes) + " bytes of device memory, more than the " + total
                    + " bytes " + context + " has");
        }
    }
}
