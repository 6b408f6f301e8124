package dev.sluice.kernel;

import dev.sluice.ClosedResourceException;
import dev.sluice.DeviceBuffer;
import dev.sluice.Dim;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.InvalidArgumentException;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

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
 * caller's. A whole-buffer reduction needs a scratch buffer of partial values: the first stream it runs on gets one
 * that this object keeps (allocated in that stream's order, freed by {@link #close()} after the launches enqueued),
 * and a reduction on any other stream allocates one in stream order and frees it after its launches.
 */
public final class DeviceReduction implements AutoCloseable {

    /** Threads per block: a multiple of every warp and wavefront size, as the generated warp reduction needs. */
    static final int BLOCK = 256;

    /** Blocks of a whole-buffer reduction's first pass at most, so that one block can reduce their partials. */
    static final int MAX_PARTIALS = 1024;

    /**
     * Blocks a column reduction aims to launch, to fill a GPU (an H100 holds 1,056 blocks of 256 threads at once): with
     * fewer tiles of columns than this, the rows are split into chunks over the grid's second dimension.
     */
    static final int COLUMN_BLOCKS = 1024;

    /** Rows a chunk of a column reduction holds at least: 8 per warp of a block, so that a chunk is worth a block. */
    static final int MIN_CHUNK_ROWS = 64;

    /**
     * Columns a row has at most for a part of a warp to reduce it rather than a block. A block per row pays a barrier
     * and a second shuffle tree per row, and leaves threads idle below 256 columns: measured on an H200 it read 64-column
     * rows at a twelfth of the speed of 16,384-column ones, which puts its per-row cost at about what 700 columns take
     * to read. A warp per row has no barrier and keeps its lanes busy from 32 columns, so it should be ahead at least up
     * to here, where each lane takes 32 elements, as a block's thread does over 8,192 columns (to be confirmed by
     * MatrixBench on a GPU).
     */
    static final int NARROW_COLS = 1024;

    /**
     * Blocks a row reduction aims to launch, as {@link #COLUMN_BLOCKS}: with fewer rows than this (and rows wider than
     * {@link #NARROW_COLS}), each row is split into chunks of columns over the grid's second dimension.
     */
    static final int ROW_BLOCKS = 1024;

    /**
     * Columns a chunk of a row reduction holds at least: 8 per thread of a block, so that a chunk is worth a block. A
     * multiple of 32, as every chunk's width is (but the last of a row), so that a chunk's warps read aligned runs where
     * the row starts aligned.
     */
    static final int MIN_CHUNK_COLS = 8 * BLOCK;

    private final Reduction reduction;
    private final DeviceFunction partials;
    private final DeviceFunction last;
    private final DeviceFunction segments;
    private final DeviceFunction columns;
    private final DeviceFunction columnPartials;
    private final DeviceFunction columnFinal;
    private final DeviceFunction narrowRows;
    private final DeviceFunction rowPartials;

    /**
     * Guards the kept scratch buffer, and is held while both passes that use it are enqueued: two callers on its stream
     * must not interleave their passes, or one's final pass would read the other's partials.
     */
    private final ReentrantLock scratchLock = new ReentrantLock();
    /** The argument counts of the partials and the final pass's kernels. */
    private final int firstCount;
    private final int secondCount;
    /** The stream the kept scratch buffer belongs to: calls on it are ordered after one another by the stream itself. */
    private DeviceStream scratchStream;
    private DeviceBuffer scratch;
    /** Written under {@link #scratchLock}; read without it by the checks, which refuse a call after close. */
    private volatile boolean closed;

    /** {@code functions}: {@link Reduction#kernels()} compiled, in that order. */
    DeviceReduction(Reduction reduction, List<DeviceFunction> functions) {
        this.reduction = reduction;
        this.partials = functions.get(0);
        this.last = functions.get(1);
        this.segments = functions.get(2);
        this.columns = functions.get(3);
        this.columnPartials = functions.get(4);
        this.columnFinal = functions.get(5);
        this.narrowRows = functions.get(6);
        this.rowPartials = functions.get(7);
        this.firstCount = partials.kernel().params().size();
        this.secondCount = last.kernel().params().size();
    }

    /**
     * Reduces elements {@code 0..n-1} of the inputs into element 0 of each output, in two launches.
     *
     * @throws InvalidArgumentException naming {@code n} for a value below 1, naming {@code stream} for a stream of
     *                                  another context, naming {@code arguments} for a count other than the declared
     *                                  parameters', an argument that is null, of another kind or element type or of
     *                                  another context (the message says which, by its place in {@code arguments}), an
     *                                  input holding fewer than {@code n} elements or an empty output; before anything
     *                                  is enqueued
     * @throws ClosedResourceException  if this reduction or a buffer argument is closed
     */
    public DeviceFuture<Void> enqueue(DeviceStream stream, long n, Object... arguments) {
        check(stream, arguments);
        if (n < 1) {
            throw new InvalidArgumentException("n", "value " + n + " must be at least 1");
        }
        checkSizes(arguments, n, 1);
        int blocks = (int) Math.min(MAX_PARTIALS, Math.ceilDiv(n, BLOCK)); // n + BLOCK - 1 would overflow near Long.MAX_VALUE
        scratchLock.lock();
        try {
            DeviceBuffer kept = keptScratch(stream);
            if (kept != null) {
                return enqueuePasses(stream, n, blocks, kept, arguments);
            }
        } finally {
            scratchLock.unlock();
        }
        // Another stream holds the kept buffer. Stream-ordered: no device-wide synchronisation, and the memory is
        // reused once the launches are done.
        DeviceBuffer own = stream.enqueueAllocate(reduction.accumulator(), blocks);
        try {
            return enqueuePasses(stream, n, blocks, own, arguments);
        } finally {
            own.close(); // freed after the launches above, in stream order
        }
    }

    /**
     * The kept scratch buffer if {@code stream} may use it, allocating it for {@code stream} if no open stream holds
     * it; null if another stream does or this object is closed. Called with the lock held.
     */
    private DeviceBuffer keptScratch(DeviceStream stream) {
        if (closed || stream.context() != partials.context()) {
            return null; // the launches refuse closed functions and a stream of another context
        }
        if (scratch != null && scratchStream != stream && scratchStream.isClosed()) {
            scratch.close(); // its stream's work is done: freed on the default stream
            scratch = null;
        }
        if (scratch == null) {
            // Room for the most partials any call launches, so that every later call on this stream can use it.
            scratch = stream.enqueueAllocate(reduction.accumulator(), MAX_PARTIALS);
            scratchStream = stream;
        }
        return scratchStream == stream ? scratch : null;
    }

    /**
     * The partials pass into {@code partialValues}, then the final pass; returns the final pass's future. Each pass's
     * argument array is filled in place, sized once: this runs on every call (the launches take the arrays as they are).
     */
    private DeviceFuture<Void> enqueuePasses(DeviceStream stream, long n, int blocks, DeviceBuffer partialValues,
            Object[] arguments) {
        long chunk = Math.ceilDiv(n, blocks);
        // the geometry: segments, segment length, its outer stride, its inner stride, the element count
        Object[] first = firstPass(arguments, partialValues, blocks, chunk, chunk, 1L, n);
        Object[] second = secondPass(arguments, partialValues, 1L, blocks, 0L, 1L, blocks);
        stream.enqueueLaunch(partials, LaunchConfig.of(blocks, BLOCK), first);
        return stream.enqueueLaunch(last, LaunchConfig.of(1, BLOCK), second);
    }

    /** The arguments of a pass that writes partials: the inputs and scalars, the partials, then {@code geometry}. */
    private Object[] firstPass(Object[] arguments, DeviceBuffer partialValues, long... geometry) {
        Object[] first = new Object[firstCount];
        int f = 0;
        for (int k = 0; k < arguments.length; k++) {
            if (!reduction.isOutput(k)) {
                first[f++] = arguments[k];
            }
        }
        first[f++] = partialValues;
        for (long g : geometry) {
            first[f++] = g;
        }
        return first;
    }

    /** The arguments of a pass that reads partials: the partials, the outputs and scalars, then {@code geometry}. */
    private Object[] secondPass(Object[] arguments, DeviceBuffer partialValues, long... geometry) {
        Object[] second = new Object[secondCount];
        int l = 0;
        second[l++] = partialValues;
        for (int k = 0; k < arguments.length; k++) {
            if (reduction.isOutput(k) || !reduction.params().get(k).isPointer()) {
                second[l++] = arguments[k];
            }
        }
        for (long g : geometry) {
            second[l++] = g;
        }
        return second;
    }

    /**
     * Reduces each row of the row-major {@code [rows][cols]} inputs into element {@code row} of each output: in one
     * launch, or, where a few wide rows would not fill the device, in two, through a scratch buffer of partial values
     * allocated in stream order and freed after the second (see {@link Reduction} for how).
     *
     * @throws InvalidArgumentException naming {@code rows} or {@code cols} for a value below 1, naming {@code cols}
     *                                  where rows * cols overflows a long, naming {@code arguments} as {@link #enqueue}
     *                                  does (inputs hold rows * cols elements, outputs rows)
     * @throws ClosedResourceException  if this reduction or a buffer argument is closed
     */
    public DeviceFuture<Void> enqueueRows(DeviceStream stream, long rows, long cols, Object... arguments) {
        checkAxis(stream, rows, cols, rows, arguments);
        long total = rows * cols;
        List<Object> args = new ArrayList<>(List.of(arguments));
        if (cols <= NARROW_COLS) {
            long lanes = lanesPerRow(cols);
            int blocks = (int) Math.min(Math.ceilDiv(rows, BLOCK / lanes), Integer.MAX_VALUE); // the kernel strides on
            args.addAll(List.of(rows, cols, lanes, total));
            return stream.enqueueLaunch(narrowRows, LaunchConfig.of(blocks, BLOCK), args.toArray());
        }
        int blocks = (int) Math.min(rows, Integer.MAX_VALUE);
        long chunkCols = rowChunkCols(rows, cols);
        if (chunkCols == cols) {
            // Segment o holds elements o * outer + k * inner, k < length: a block per row, whose elements are adjacent,
            // so the threads striding along it read contiguous runs.
            args.addAll(List.of(rows, cols, cols, 1L, total));
            return stream.enqueueLaunch(segments, LaunchConfig.of(blocks, BLOCK), args.toArray());
        }
        int chunks = (int) Math.ceilDiv(cols, chunkCols);
        long values = rows * chunks; // under ROW_BLOCKS rows of at most ROW_BLOCKS chunks
        DeviceBuffer partialValues = stream.enqueueAllocate(reduction.accumulator(), values);
        try {
            // the geometry: rows, columns, columns per chunk, values written, elements read
            stream.enqueueLaunch(rowPartials, LaunchConfig.of(Dim.of(blocks, chunks), Dim.of(BLOCK)),
                    firstPass(arguments, partialValues, rows, cols, chunkCols, values, total));
            // then a block per row of partials, in chunk order: segments, length, outer stride, inner stride, elements
            return stream.enqueueLaunch(last, LaunchConfig.of(blocks, BLOCK),
                    secondPass(arguments, partialValues, rows, chunks, chunks, 1L, values));
        } finally {
            partialValues.close(); // freed after the launches above, in stream order
        }
    }

    /**
     * The lanes of a warp that reduce a narrow row: the fewest, a power of two, that leave each at most
     * {@link #ELEMENTS_PER_LANE} of its elements, and 32 at most. Rows of 64 columns get 8 lanes (a warp reads four rows
     * at once, eight loads a lane in flight) rather than 32 (two loads a lane, too few to cover the memory's latency).
     */
    static long lanesPerRow(long cols) {
        long lanes = Math.ceilDiv(cols, ELEMENTS_PER_LANE);
        return lanes >= 32 ? 32 : Long.highestOneBit(2 * lanes - 1);
    }

    /** Elements a lane of a narrow row reads at most, where the row is narrow enough for fewer than 32 lanes. */
    static final int ELEMENTS_PER_LANE = 8;

    /**
     * The columns each chunk of a row reduction holds: all of them where the rows fill the device, else enough chunks
     * for {@link #ROW_BLOCKS} blocks in all, of at least {@link #MIN_CHUNK_COLS} columns each, their width rounded up to
     * a multiple of 32. A function of the sizes alone, so that the order values are combined in is too.
     */
    static long rowChunkCols(long rows, long cols) {
        if (rows >= ROW_BLOCKS) {
            return cols;
        }
        long chunks = Math.min(Math.ceilDiv(ROW_BLOCKS, rows), Math.ceilDiv(cols, MIN_CHUNK_COLS));
        long chunkCols = Math.ceilDiv(Math.ceilDiv(cols, chunks), 32) * 32;
        return chunks <= 1 || chunkCols >= cols ? cols : chunkCols;
    }

    /**
     * Reduces each column of the row-major {@code [rows][cols]} inputs into element {@code col} of each output: in one
     * launch, or, where the columns are too few to fill the device, in two, through a scratch buffer of partial values
     * allocated in stream order and freed after the second (see {@link Reduction} for how).
     *
     * @throws InvalidArgumentException as {@link #enqueueRows} does (outputs hold cols elements)
     * @throws ClosedResourceException  if this reduction or a buffer argument is closed
     */
    public DeviceFuture<Void> enqueueColumns(DeviceStream stream, long rows, long cols, Object... arguments) {
        checkAxis(stream, rows, cols, cols, arguments);
        long total = rows * cols;
        long tiles = Math.ceilDiv(cols, ReductionCode.COLUMN_TILE);
        int gridX = (int) Math.min(tiles, Integer.MAX_VALUE); // the kernel strides over the tiles past the grid
        long chunkRows = columnChunkRows(rows, tiles);
        if (chunkRows == rows) {
            List<Object> args = new ArrayList<>(List.of(arguments));
            args.addAll(List.of(cols, rows, rows, cols, total));
            return stream.enqueueLaunch(columns, LaunchConfig.of(gridX, BLOCK), args.toArray());
        }
        int chunks = (int) Math.ceilDiv(rows, chunkRows);
        long values = chunks * cols; // at most about COLUMN_BLOCKS * COLUMN_TILE: there are fewer tiles than COLUMN_BLOCKS
        DeviceBuffer partialValues = stream.enqueueAllocate(reduction.accumulator(), values);
        try {
            // the geometry: columns, rows, rows per chunk, values written, elements read
            stream.enqueueLaunch(columnPartials, LaunchConfig.of(Dim.of(gridX, chunks), Dim.of(BLOCK)),
                    firstPass(arguments, partialValues, cols, rows, chunkRows, values, total));
            return stream.enqueueLaunch(columnFinal, LaunchConfig.of(gridX, BLOCK),
                    secondPass(arguments, partialValues, cols, chunks, chunks, cols, values));
        } finally {
            partialValues.close(); // freed after the launches above, in stream order
        }
    }

    /**
     * The rows each chunk of a column reduction holds: all of them where the tiles of columns fill the device, else
     * enough chunks for {@link #COLUMN_BLOCKS} blocks in all, of at least {@link #MIN_CHUNK_ROWS} rows each. A function
     * of the sizes alone, so that the order values are combined in is too.
     */
    static long columnChunkRows(long rows, long tiles) {
        if (tiles >= COLUMN_BLOCKS) {
            return rows;
        }
        long chunks = Math.min(Math.ceilDiv(COLUMN_BLOCKS, tiles), Math.ceilDiv(rows, MIN_CHUNK_ROWS));
        return chunks <= 1 ? rows : Math.ceilDiv(rows, chunks);
    }

    /** Checks a row or column reduction's arguments: inputs of rows * cols elements, outputs of {@code results}. */
    private void checkAxis(DeviceStream stream, long rows, long cols, long results, Object[] arguments) {
        check(stream, arguments);
        if (rows < 1) {
            throw new InvalidArgumentException("rows", "value " + rows + " must be at least 1");
        }
        if (cols < 1) {
            throw new InvalidArgumentException("cols", "value " + cols + " must be at least 1");
        }
        if (cols > Long.MAX_VALUE / rows) {
            throw new InvalidArgumentException("cols", "value " + cols + " times rows " + rows
                    + " is more elements than a long counts (" + Long.MAX_VALUE + ")");
        }
        checkSizes(arguments, rows * cols, results);
    }

    private void check(DeviceStream stream, Object[] arguments) {
        if (closed) {
            throw new ClosedResourceException(toString());
        }
        if (stream == null) {
            throw new InvalidArgumentException("stream", "must not be null");
        }
        if (stream.context() != partials.context()) {
            throw new InvalidArgumentException("stream", stream + " belongs to another context than " + this);
        }
        if (arguments == null) {
            throw new InvalidArgumentException("arguments", "must not be null");
        }
        if (arguments.length != reduction.params().size()) {
            throw new InvalidArgumentException("arguments", arguments.length + " given but reduction " + reduction.name()
                    + " takes " + reduction.params().size() + ": " + reduction.params());
        }
        for (int k = 0; k < arguments.length; k++) {
            checkArgument(stream, k, reduction.params().get(k), arguments[k]);
        }
    }

    /**
     * Checks argument {@code k} as a launch would, naming its place in the reduction's arguments rather than in one of
     * its kernels': the passes split them, and a pass already enqueued must not be left behind by a refusal of the next.
     */
    private static void checkArgument(DeviceStream stream, int k, KernelParam p, Object value) {
        if (value == null) {
            throw new InvalidArgumentException("arguments", "argument " + k + " (" + p + ") must not be null");
        }
        if (!p.isPointer()) {
            if (value instanceof Number n) {
                p.type().bits("arguments", n);
            } else if (!(value instanceof Boolean) || p.type().isFloatingPoint()) {
                throw new InvalidArgumentException("arguments", "argument " + k + " (" + p + ") expects a " + p.type()
                        + " but got " + value.getClass().getSimpleName() + " " + value);
            }
            return;
        }
        if (!(value instanceof DeviceBuffer b)) {
            throw new InvalidArgumentException("arguments", "argument " + k + " (" + p + ") expects a DeviceBuffer of "
                    + p.type() + " but got " + value.getClass().getSimpleName() + " " + value);
        }
        if (b.isClosed()) {
            throw new ClosedResourceException("argument " + k + " (" + p + ") " + b);
        }
        if (b.context() != stream.context()) {
            throw new InvalidArgumentException("arguments", "argument " + k + " (" + p + ") " + b
                    + " belongs to another context than " + stream);
        }
        if (b.dtype() != p.type()) {
            throw new InvalidArgumentException("arguments", "argument " + k + " (" + p + ") has element type " + b.dtype()
                    + ", not " + p.type());
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

    /** Unloads the kernels and frees the kept scratch buffer, after the launches already enqueued. Idempotent. */
    @Override
    public void close() {
        scratchLock.lock();
        try {
            closed = true;
            if (scratch != null) {
                scratch.close(); // in stream order, after every pass already enqueued on it
                scratch = null;
            }
        } finally {
            scratchLock.unlock();
        }
        partials.close();
        last.close();
        segments.close();
        columns.close();
        columnPartials.close();
        columnFinal.close();
        narrowRows.close();
        rowPartials.close();
    }

    @Override
    public String toString() {
        return "DeviceReduction " + reduction.name() + " on " + partials.context();
    }
}
