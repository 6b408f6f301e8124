package dev.sluice.kernel;

import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.InvalidArgumentException;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Reduction} compiled on one context: launches it over a whole buffer or along an axis of a 2-D buffer.
 * Thread-safe. Close it to unload its kernels (after the launches already enqueued).
 *
 * <p>Every method takes the declared parameters' values in their declared order, as a kernel launch does: a
 * {@link DeviceBuffer} for a pointer, a {@link Number} or {@link Boolean} for a scalar.
 *
 * <p><b>Ordering:</b> the launches are enqueued on the given stream, after the work already there.
 * <b>Completion thread:</b> the future completes as launch futures do (see {@link DeviceStream#enqueueLaunch}).
 * <b>Cancellation:</b> cancelling the future does not stop the launches. <b>Resources:</b> the buffers stay the
 * caller's; a whole-buffer reduction allocates a scratch buffer of partial values in stream order and frees it after
 * its launches.
 */
public final class DeviceReduction implements AutoCloseable {

    /** Threads per block: a multiple of every warp and wavefront size, as the generated warp reduction needs. */
    static final int BLOCK = 256;

    /** Blocks of a whole-buffer reduction's first pass at most, so that one block can reduce their partials. */
    static final int MAX_PARTIALS = 1024;

    private final Reduction reduction;
    private final DeviceFunction partials;
    private final DeviceFunction last;
    private final DeviceFunction segments;

    DeviceReduction(Reduction reduction, DeviceFunction partials, DeviceFunction last, DeviceFunction segments) {
        this.reduction = reduction;
        this.partials = partials;
        this.last = last;
        this.segments = segments;
    }

    /**
     * Reduces elements {@code 0..n-1} of the inputs into element 0 of each output, in two launches.
     *
     * @throws InvalidArgumentException naming {@code n} for a value below 1, naming {@code arguments} for a count other
     *                                  than the declared parameters', an input holding fewer than {@code n} elements or
     *                                  an empty output
     */
    public DeviceFuture<Void> enqueue(DeviceStream stream, long n, Object... arguments) {
        check(stream, arguments);
        if (n < 1) {
            throw new InvalidArgumentException("n", "value " + n + " must be at least 1");
        }
        checkSizes(arguments, n, 1);
        int blocks = (int) Math.min(MAX_PARTIALS, (n + BLOCK - 1) / BLOCK);
        long chunk = (n + blocks - 1) / blocks;
        // Stream-ordered: no device-wide synchronisation, and the memory is reused once the launches are done.
        DeviceBuffer scratch = stream.enqueueAllocate(reduction.accumulator(), blocks);
        try {
            List<Object> first = new ArrayList<>();
            List<Object> second = new ArrayList<>(List.of(scratch));
            for (int k = 0; k < arguments.length; k++) {
                boolean pointer = reduction.params().get(k).isPointer();
                if (!reduction.isOutput(k)) {
                    first.add(arguments[k]);
                }
                if (reduction.isOutput(k) || !pointer) {
                    second.add(arguments[k]);
                }
            }
            first.add(scratch);
            first.addAll(List.of(blocks, chunk, chunk, 1L, n).stream().map(Number::longValue).toList());
            second.addAll(List.of(1L, (long) blocks, 0L, 1L, (long) blocks));
            stream.enqueueLaunch(partials, LaunchConfig.of(blocks, BLOCK), first.toArray());
            return stream.enqueueLaunch(last, LaunchConfig.of(1, BLOCK), second.toArray());
        } finally {
            scratch.close(); // freed after the launches above, in stream order
        }
    }

    /**
     * Reduces each row of the row-major {@code [rows][cols]} inputs into element {@code row} of each output.
     *
     * @throws InvalidArgumentException naming {@code rows} or {@code cols} for a value below 1, naming
     *                                  {@code arguments} as {@link #enqueue} does (inputs hold rows * cols elements,
     *                                  outputs rows)
     */
    public DeviceFuture<Void> enqueueRows(DeviceStream stream, long rows, long cols, Object... arguments) {
        return axis(stream, rows, cols, true, arguments);
    }

    /**
     * Reduces each column of the row-major {@code [rows][cols]} inputs into element {@code col} of each output.
     *
     * @throws InvalidArgumentException as {@link #enqueueRows} does (outputs hold cols elements)
     */
    public DeviceFuture<Void> enqueueColumns(DeviceStream stream, long rows, long cols, Object... arguments) {
        return axis(stream, rows, cols, false, arguments);
    }

    private DeviceFuture<Void> axis(DeviceStream stream, long rows, long cols, boolean alongRows, Object... arguments) {
        check(stream, arguments);
        if (rows < 1) {
            throw new InvalidArgumentException("rows", "value " + rows + " must be at least 1");
        }
        if (cols < 1) {
            throw new InvalidArgumentException("cols", "value " + cols + " must be at least 1");
        }
        long total = Math.multiplyExact(rows, cols);
        long count = alongRows ? rows : cols;
        checkSizes(arguments, total, count);
        List<Object> args = new ArrayList<>(List.of(arguments));
        // Segment o holds elements o * outer + k * inner, k < length.
        args.addAll(alongRows ? List.of(rows, cols, cols, 1L, total) : List.of(cols, rows, 1L, cols, total));
        int blocks = (int) Math.min(count, Integer.MAX_VALUE);
        return stream.enqueueLaunch(segments, LaunchConfig.of(blocks, BLOCK), args.toArray());
    }

    private void check(DeviceStream stream, Object[] arguments) {
        if (stream == null) {
            throw new InvalidArgumentException("stream", "must not be null");
        }
        if (arguments == null) {
            throw new InvalidArgumentException("arguments", "must not be null");
        }
        if (arguments.length != reduction.params().size()) {
            throw new InvalidArgumentException("arguments", arguments.length + " given but reduction " + reduction.name()
                    + " takes " + reduction.params().size() + ": " + reduction.params());
        }
    }

    /** Inputs must hold {@code elements} elements and outputs {@code results}: the kernels index them without checks. */
    private void checkSizes(Object[] arguments, long elements, long results) {
        for (int k = 0; k < arguments.length; k++) {
            KernelParam p = reduction.params().get(k);
            if (p.isPointer() && arguments[k] instanceof DeviceBuffer b) {
                long needed = reduction.isOutput(k) ? results : elements;
                if (b.count() < needed) {
                    throw new InvalidArgumentException("arguments", "argument " + k + " (" + p + ") holds " + b.count()
                            + " elements but the reduction " + (reduction.isOutput(k) ? "writes " : "reads ") + needed);
                }
            }
        }
    }

    /** Unloads the kernels, after the launches already enqueued. Idempotent. */
    @Override
    public void close() {
        partials.close();
        last.close();
        segments.close();
    }

    @Override
    public String toString() {
        return "DeviceReduction " + reduction.name() + " on " + partials.context();
    }
}
