package dev.sluice;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The {@link HostData} of memory Sluice did not pin: a Java array (typed), a {@code ByteBuffer} or a
 * {@code MemorySegment} (untyped bytes). The copy stages it through pinned memory and keeps the segment reachable until
 * the device has finished with it.
 */
final class HostSegment implements HostData {

    // One array per Java element type, shared: a copy's type check allocates nothing. Never handed out.
    static final DType[] F32 = {DType.F32};
    static final DType[] F64 = {DType.F64};
    static final DType[] INT = {DType.I32, DType.U32};
    static final DType[] LONG = {DType.I64, DType.U64};
    static final DType[] SHORT = {DType.I16, DType.U16, DType.F16, DType.BF16};
    static final DType[] BYTE = {DType.I8, DType.U8, DType.BOOL};

    /** The memory the copy reads or writes. */
    final MemorySegment segment;
    /** The device element types an array matches; null for untyped bytes. */
    private final DType @Nullable [] types;
    /** What the memory is, for messages: {@code float[]}, {@code ByteBuffer}, {@code segment}. */
    private final String kind;

    HostSegment(MemorySegment segment, DType @Nullable [] types, String kind) {
        this.segment = segment;
        this.types = types;
        this.kind = kind;
    }

    /**
     * {@code count} elements of an array of {@code length} from index {@code from}; {@code whole} is the array's segment.
     * Overflow-safe: {@code from + count} is never computed.
     */
    static HostSegment ofRange(MemorySegment whole, DType[] types, String element, int length, int from, int count) {
        Checks.nonNegative("from", from);
        Checks.positive("count", count);
        if (from > length || count > length - from) {
            throw new InvalidArgumentException("count", "range of " + count + " elements from index " + from + " exceeds the "
                    + element + "[] of " + length + " elements");
        }
        long size = types[0].byteSize();
        return new HostSegment(whole.asSlice(from * size, count * size), types, element + "[]");
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    /** Whether this is untyped bytes (a {@code ByteBuffer} or {@code MemorySegment}) rather than an array. */
    boolean isUntyped() {
        return types == null;
    }

    /**
     * An array copies only to or from a device buffer of a matching element type; untyped bytes to or from any.
     *
     * @param argument the name of the device buffer's argument
     */
    void checkElementType(String argument, DeviceBuffer buffer) {
        DType[] accepted = types;
        if (accepted == null) {
            return;
        }
        for (DType t : accepted) {
            if (t == buffer.dtype()) {
                return;
            }
        }
        throw new InvalidArgumentException(argument, "element type " + buffer.dtype() + " of " + buffer
                + " does not match the array's element type (one of " + Arrays.toString(accepted) + ")");
    }

    /** A copy's destination must be writable: a read-only {@code ByteBuffer} or segment is refused. */
    void checkWritable() {
        if (segment.isReadOnly()) {
            throw new InvalidArgumentException("destination", kind + " is read-only");
        }
    }

    @Override
    public String toString() {
        return "HostData[" + kind + ", " + segment.byteSize() + " bytes]";
    }
}
