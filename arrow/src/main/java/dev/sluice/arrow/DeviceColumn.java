package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.InvalidArgumentException;
import org.jspecify.annotations.Nullable;

/**
 * One Arrow column in device memory, laid out as Arrow lays it out on the host: a validity bitmap (U8, bit {@code i % 8}
 * of byte {@code i / 8} set where value {@code i} is not null), for a variable-width column {@code valueCount + 1}
 * offsets (I32 or I64), and the values. A kernel takes {@link #data()} (and {@link #validity()}, {@link #offsets()})
 * as buffer arguments. Made by {@link ArrowColumns#upload} or {@link #allocate}; read back into a vector with
 * {@link ArrowColumns#download}.
 *
 * <p><b>Resources:</b> {@link #close()} closes its device buffers, which Sluice frees once the work already enqueued on
 * them has finished.
 */
public final class DeviceColumn implements AutoCloseable {

    private final DType type;
    private final @Nullable DType offsetType;
    private final int valueCount;
    private final @Nullable DeviceBuffer validity;
    private final @Nullable DeviceBuffer offsets;
    private final @Nullable DeviceBuffer data;

    DeviceColumn(DType type, @Nullable DType offsetType, int valueCount, @Nullable DeviceBuffer validity,
            @Nullable DeviceBuffer offsets, @Nullable DeviceBuffer data) {
        this.type = type;
        this.offsetType = offsetType;
        this.valueCount = valueCount;
        this.validity = validity;
        this.offsets = offsets;
        this.data = data;
    }

    /**
     * A fixed-width column of {@code valueCount} values of {@code type} in {@code context}'s memory, contents undefined,
     * for a kernel to write: with a validity bitmap if {@code nullable} (the kernel writes it too), else every value is
     * valid. A column of 0 values has no buffers.
     *
     * @throws InvalidArgumentException naming {@code context} if null or closed, {@code type} if null, or
     *                                  {@code valueCount} if negative; nothing is allocated then
     */
    public static DeviceColumn allocate(DeviceContext context, DType type, int valueCount, boolean nullable) {
        ArrowColumns.checkContext(context);
        if (type == null) {
            throw new InvalidArgumentException("type", "must not be null");
        }
        if (valueCount < 0) {
            throw new InvalidArgumentException("valueCount", "value " + valueCount + " is negative");
        }
        if (valueCount == 0) {
            return new DeviceColumn(type, null, 0, null, null, null);
        }
        DeviceBuffer data = context.allocate(type, valueCount);
        DeviceBuffer validity = null;
        try {
            validity = nullable ? context.allocate(DType.U8, (valueCount + 7L) / 8) : null;
        } catch (RuntimeException e) {
            data.close();
            throw e;
        }
        return new DeviceColumn(type, null, valueCount, validity, null, data);
    }

    /** The element type of the values: U8 (bytes) for a variable-width column. */
    public DType type() {
        return type;
    }

    /** I32 or I64 for a variable-width column, else null. */
    public @Nullable DType offsetType() {
        return offsetType;
    }

    /** The number of values. */
    public int valueCount() {
        return valueCount;
    }

    /** The validity bitmap ({@code ceil(valueCount / 8)} bytes); null where every value is valid or there are none. */
    public @Nullable DeviceBuffer validity() {
        return validity;
    }

    /** The {@code valueCount + 1} offsets of a variable-width column; null for a fixed-width one or no values. */
    public @Nullable DeviceBuffer offsets() {
        return offsets;
    }

    /** The values; null where there are none (no values, or only empty strings). */
    public @Nullable DeviceBuffer data() {
        return data;
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        DeviceBuffer any = data != null ? data : offsets != null ? offsets : validity;
        return closed || (any != null && any.isClosed());
    }

    private volatile boolean closed;

    /** Closes the device buffers: freed once the work already enqueued on them has finished. Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (DeviceBuffer b : new DeviceBuffer[] {validity, offsets, data}) {
            if (b != null) {
                b.close();
            }
        }
    }

    @Override
    public String toString() {
        return "DeviceColumn[" + type + (offsetType != null ? " with " + offsetType + " offsets" : "") + " x " + valueCount
                + (validity != null ? ", nullable" : "") + (isClosed() ? ", closed" : "") + "]";
    }
}
