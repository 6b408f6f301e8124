package dev.sluice.arrow;

import dev.sluice.DType;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import org.jspecify.annotations.Nullable;

/**
 * The host memory of one Arrow vector as {@link HostData}, each piece exactly as long as its value count needs: views
 * of the vector's own buffers, not copies. For a vector of a {@link PinnedAllocationFactory} allocator each piece is a
 * pinned {@link dev.sluice.HostBuffer} (copies by DMA); for any other it is untyped memory that a copy stages through
 * pinned memory, or the registered buffers of a {@link RegisteredColumn}.
 *
 * @param valueCount the number of values
 * @param type       the element type of the values: U8 (bytes) for a variable-width column
 * @param offsetType I32 or I64 for a variable-width column, else null
 * @param validity   the validity bitmap, {@code ceil(valueCount / 8)} bytes (U8), bit {@code i % 8} of byte
 *                   {@code i / 8} set where value {@code i} is not null; null where the vector has no bitmap (no nulls)
 *                   or no values
 * @param offsets    {@code valueCount + 1} offsets into the values of a variable-width column, else null
 * @param data       the values; null where there are none ({@code valueCount == 0}, or only empty strings)
 */
public record ColumnData(int valueCount, DType type, @Nullable DType offsetType, @Nullable HostData validity,
        @Nullable HostData offsets, @Nullable HostData data) {

    /**
     * Checks what no column can be.
     *
     * @throws InvalidArgumentException naming {@code valueCount} if negative, {@code type} if null, or
     *                                  {@code offsetType} if neither null, I32 nor I64
     */
    public ColumnData {
        if (valueCount < 0) {
            throw new InvalidArgumentException("valueCount", "value " + valueCount + " is negative");
        }
        if (type == null) {
            throw new InvalidArgumentException("type", "must not be null");
        }
        if (offsetType != null && offsetType != DType.I32 && offsetType != DType.I64) {
            throw new InvalidArgumentException("offsetType", "value " + offsetType + " is neither I32 nor I64 (nor null,"
                    + " for a fixed-width column)");
        }
    }
}
