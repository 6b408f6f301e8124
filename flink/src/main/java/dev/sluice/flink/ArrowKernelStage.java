package dev.sluice.flink;

import dev.sluice.ClosedResourceException;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.arrow.ArrowColumns;
import dev.sluice.arrow.PinnedAllocationFactory;
import java.io.IOException;
import java.io.Serial;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;
import org.jspecify.annotations.Nullable;

/**
 * The stage {@link ArrowBatches#kernel}'s builder makes: each {@link ArrowBatch} is read into vectors of the subtask's
 * pinned allocator, its input columns' values are uploaded from that pinned memory into the lane's device buffers, the
 * kernel runs {@code (inputs..., output, long n)}, and the output column is downloaded into a vector of the same
 * allocator, whose validity bitmap the host writes; the result batch is the pass-through columns and the output column.
 *
 * <p><b>Resources.</b> {@link #open} makes the subtask's allocator; every vector of an element is closed when the
 * element's future completes (or when the stage throws); {@link #close} waits for the elements still finishing (up to
 * {@link SluiceOptions#ARROW_CLOSE_TIMEOUT}), then closes the allocator, whose leak report (a buffer still allocated)
 * fails the close.
 */
final class ArrowKernelStage implements GpuStage<ArrowBatch, ArrowBatch>, ConfiguredStage {
    @Serial
    private static final long serialVersionUID = 1L;

    private final KernelSource source;
    private final List<String> inputs;
    /** The output field, as Arrow's JSON of a schema of it alone: Arrow's {@link Field} is not serializable. */
    private final String outputSchema;
    private final List<String> passThrough;
    /** How long {@link #close} waits for elements to let go of their vectors; null: {@link #configure} reads it. */
    private final @Nullable Duration closeTimeout;

    // Per subtask, from open() on.
    private transient @Nullable Kernel kernel;
    private transient @Nullable Field output;
    private transient @Nullable DType outputType;
    private transient @Nullable RootAllocator allocator;
    /** The pinned memory behind {@link #allocator}, pooled across elements; closed after it. */
    private transient @Nullable PinnedAllocationFactory pinned;
    /** Elements between their apply and the end of their vectors; guarded by this. */
    private transient int live;
    private transient boolean closed;
    /** {@link #closeTimeout}, resolved by {@link #configure}: the default where no function configured the stage. */
    private transient @Nullable Duration closeWait;

    ArrowKernelStage(KernelSource source, List<String> inputs, Field output, List<String> passThrough,
            @Nullable Duration closeTimeout) {
        this.source = source;
        this.inputs = List.copyOf(inputs);
        this.outputSchema = new Schema(List.of(output)).toJson();
        this.passThrough = List.copyOf(passThrough);
        this.closeTimeout = closeTimeout == null ? null
                : SluiceOptions.checkCloseTimeout("closeTimeout", closeTimeout);
    }

    /** The builder's close timeout, else {@link SluiceOptions#ARROW_CLOSE_TIMEOUT} of {@code settings}. */
    @Override
    public void configure(Configuration settings) {
        Duration wait = closeTimeout != null ? closeTimeout : SluiceOptions.arrowCloseTimeout(settings);
        synchronized (this) {
            closeWait = wait;
        }
    }

    /** How long {@link #close} waits for elements still finishing. */
    synchronized Duration closeWait() {
        Duration wait = closeWait;
        return wait != null ? wait : SluiceOptions.ARROW_CLOSE_TIMEOUT.defaultValue();
    }

    @Override
    public List<Kernel> kernels() {
        return List.of(kernel());
    }

    private Kernel kernel() {
        Kernel k = kernel;
        if (k == null) {
            k = source.kernel();
            if (k == null) {
                throw new InvalidArgumentException("kernel", "the kernel source gave null");
            }
            checkParams(k);
            kernel = k;
        }
        return k;
    }

    /** The kernel must take a pointer per input column, one for the output, then n. */
    private void checkParams(Kernel k) {
        List<KernelParam> ps = k.params();
        int pointers = inputs.size() + 1;
        boolean fits = ps.size() == pointers + 1 && !ps.getLast().isPointer();
        for (int i = 0; fits && i < pointers; i++) {
            fits = ps.get(i).isPointer();
        }
        if (!fits) {
            throw new InvalidArgumentException("kernel", k.name() + " takes " + ps + "; the stage passes a pointer per"
                    + " input column " + inputs + ", one for the output column, then the row count n as a long");
        }
    }

    @Override
    public void open(DeviceContext context) {
        Field f;
        try {
            f = Schema.fromJSON(outputSchema).getFields().getFirst();
        } catch (IOException e) {
            throw new UncheckedIOException("the output field's JSON, which this stage wrote: " + outputSchema, e);
        }
        DType t = ArrowBatches.fixedWidthType(f.getType());
        KernelParam p = kernel().params().get(inputs.size());
        if (p.type() != t) {
            throw new InvalidArgumentException("kernel", kernel().name() + "'s parameter " + p.name() + " takes " + p.type()
                    + " but the output column " + f.getName() + " is " + t + " (" + f.getType() + ")");
        }
        output = f;
        outputType = t;
        pinned = PinnedAllocationFactory.of(context);
        allocator = pinned.newRootAllocator(Long.MAX_VALUE);
    }

    @Override
    public CompletableFuture<ArrowBatch> apply(GpuLane lane, ArrowBatch batch) {
        if (batch == null) {
            throw new InvalidArgumentException("batch", "must not be null");
        }
        RootAllocator a = enter(lane);
        VectorSchemaRoot in = null;
        FieldVector out = null;
        boolean handedOver = false;
        try {
            in = batch.read(a);
            List<FieldVector> columns = columns(in);
            int n = in.getRowCount();
            Field f = output;
            DType outType = outputType;
            out = f.createVector(a);
            ((BaseFixedWidthVector) out).allocateNew(Math.max(n, 1));
            if (n == 0) {
                out.setValueCount(0);
                return CompletableFuture.completedFuture(result(in, out, 0));
            }
            writeValidity(columns, out, n, f.isNullable());
            DeviceStream s = lane.stream();
            Object[] args = new Object[inputs.size() + 2];
            for (int i = 0; i < columns.size(); i++) {
                FieldVector v = columns.get(i);
                DType t = ArrowBatches.fixedWidthType(v.getField().getType());
                DeviceBuffer d = lane.deviceBuffer(i, t, n);
                // From the pinned body buffer the batch was read into: a DMA, no staging copy.
                s.enqueueCopy(ArrowColumns.hostData(v.getDataBuffer(), (long) n * t.byteSize(), t), d);
                args[i] = d;
            }
            DeviceBuffer y = lane.deviceBuffer(inputs.size(), outType, n);
            args[inputs.size()] = y;
            args[inputs.size() + 1] = (long) n;
            s.enqueueLaunch(lane.function(kernel()), LaunchConfig.forElements(n), args);
            CompletableFuture<Void> copied = s.enqueueCopy(y,
                    ArrowColumns.hostData(out.getDataBuffer(), (long) n * outType.byteSize(), outType));
            VectorSchemaRoot input = in;
            FieldVector result = out;
            CompletableFuture<ArrowBatch> done = copied.handle((v, failure) -> {
                try {
                    if (failure != null) {
                        throw failure instanceof CompletionException c ? c : new CompletionException(failure);
                    }
                    result.setValueCount(n);
                    return result(input, result, n);
                } finally {
                    release(input, result);
                }
            });
            handedOver = true; // the chain above releases the vectors now
            return done;
        } finally {
            if (!handedOver) {
                // Pinned memory that copies already enqueued read is freed once they finish (Sluice's rule).
                release(in, out);
            }
        }
    }

    /** The input columns, checked against the kernel's parameters, and the pass-through columns' presence. */
    private List<FieldVector> columns(VectorSchemaRoot in) {
        List<KernelParam> ps = kernel().params();
        List<FieldVector> columns = new ArrayList<>(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            FieldVector v = column(in, inputs.get(i));
            DType t = ArrowBatches.fixedWidthTypeOrNull(v.getField().getType());
            if (t != ps.get(i).type()) {
                throw new InvalidArgumentException("batch", "column " + v.getName() + " is " + v.getField().getType()
                        + (t == null ? "" : " (" + t + ")") + " but the kernel's parameter " + ps.get(i).name()
                        + " takes " + ps.get(i).type());
            }
            columns.add(v);
        }
        for (String name : passThrough) {
            column(in, name);
        }
        return columns;
    }

    private static FieldVector column(VectorSchemaRoot in, String name) {
        FieldVector v = in.getVector(name);
        if (v == null) {
            throw new InvalidArgumentException("batch", "has no column " + name + "; its schema is " + in.getSchema());
        }
        return v;
    }

    /**
     * The output's bitmap, written on the host into its pinned memory (n / 8 bytes, beside n values that the device
     * moves): null where an input column is null if the output field is nullable, else all valid.
     */
    private static void writeValidity(List<FieldVector> inputs, FieldVector out, int n, boolean nullable) {
        long bytes = (n + 7L) / 8;
        ArrowBuf valid = out.getValidityBuffer();
        valid.setOne(0, bytes);
        if (!nullable) {
            return;
        }
        for (FieldVector in : inputs) {
            if (in.getNullCount() == 0) {
                continue;
            }
            ArrowBuf v = in.getValidityBuffer();
            long i = 0;
            for (; i + 8 <= bytes; i += 8) {
                valid.setLong(i, valid.getLong(i) & v.getLong(i));
            }
            for (; i < bytes; i++) {
                valid.setByte(i, valid.getByte(i) & v.getByte(i));
            }
        }
    }

    /** The result batch: the pass-through columns, then the output column. */
    private ArrowBatch result(VectorSchemaRoot in, FieldVector out, int n) {
        List<FieldVector> vectors = new ArrayList<>(passThrough.size() + 1);
        for (String name : passThrough) {
            vectors.add(in.getVector(name));
        }
        vectors.add(out);
        List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
        return ArrowBatch.of(new VectorSchemaRoot(fields, vectors, n)); // not closed: its vectors are in's and out
    }

    /** The subtask's allocator, null before open() and after close(). */
    synchronized @Nullable RootAllocator allocator() {
        return allocator;
    }

    /** Counts an element in, or refuses it once the stage has closed; the subtask's allocator. */
    private synchronized RootAllocator enter(GpuLane lane) {
        RootAllocator a = allocator;
        if (closed || a == null) {
            throw new ClosedResourceException("Arrow stage on " + lane + " (its function has closed)");
        }
        live++;
        return a;
    }

    /** Closes an element's vectors and counts it out. */
    private void release(@Nullable VectorSchemaRoot in, @Nullable FieldVector out) {
        try {
            if (out != null) {
                out.close();
            }
            if (in != null) {
                in.close();
            }
        } finally {
            synchronized (this) {
                live--;
                notifyAll();
            }
        }
    }

    /**
     * Closes the subtask's allocator once no element holds vectors of it: the lanes have closed before, so the elements
     * still counted are only finishing their results (or waiting for a lane they will not get).
     *
     * @throws IllegalStateException if the allocator still has buffers (Arrow's leak report), or an element held
     *                               its vectors past the wait
     */
    @Override
    public void close() {
        RootAllocator a;
        PinnedAllocationFactory memory;
        int left;
        Duration waited = closeWait();
        synchronized (this) {
            closed = true;
            long deadline = System.nanoTime() + waited.toNanos();
            long wait;
            while (live > 0 && (wait = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            left = live;
            a = allocator;
            allocator = null;
            memory = pinned;
            pinned = null;
        }
        if (a == null) {
            return;
        }
        try {
            a.close();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("sluice-flink: the subtask's Arrow allocator closed with memory still allocated"
                    + (left > 0 ? " by " + left + " element(s) not finished after " + TimeUtils.formatWithHighestUnit(
                            waited) + " (" + SluiceOptions.ARROW_CLOSE_TIMEOUT.key() + ")" : "") + ": " + e.getMessage(),
                    e);
        } finally {
            if (memory != null) {
                memory.close(); // the pool's memory: what Arrow still holds stays until Arrow releases it
            }
        }
    }
}
