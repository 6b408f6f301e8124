package dev.sluice;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Host memory that a copy reads from or writes to: the host side of {@link DeviceStream#enqueueCopy(HostData, DeviceBuffer)}
 * and {@link DeviceStream#enqueueCopy(DeviceBuffer, HostData)}, and of the same copies in {@link SyncStream} and the
 * reactive façade. A {@link HostBuffer} is one itself (pinned memory, the fast path; a range is a
 * {@link HostBuffer#slice}); the factories here wrap Java arrays, whole or a range of them, {@link ByteBuffer}s and
 * {@link MemorySegment}s, which a copy stages through pinned memory.
 *
 * <p>An array knows its element type and is copied only to or from a device buffer of a matching type ({@code float[]}:
 * F32; {@code int[]}: I32 or U32, and so on). A {@code ByteBuffer} or {@code MemorySegment} is untyped bytes and is
 * copied to or from a device buffer of the same byte size, whatever its element type.
 *
 * <p>A {@code HostData} is a view, not a copy: it shares the memory it wraps, the copy reads or writes that memory in
 * stream order, and the array, buffer or segment must not be changed (a source) or read (a destination) until the
 * copy's future has completed. The factories check their own arguments; whether the memory fits a copy (size, element
 * type, a read-only destination, an arena still open) is checked by the copy, at its call, naming {@code source} or
 * {@code destination}. A {@code HostData} may be used for any number of copies, from any thread.
 */
public sealed interface HostData permits HostBuffer, HostSegment {

    /** The number of bytes a copy of this memory reads or writes. */
    long byteSize();

    /** All of {@code array}, for copies to and from F32 buffers. */
    static HostData of(float[] array) {
        return new HostSegment(MemorySegment.ofArray(Checks.notNull("array", array)), HostSegment.F32, "float[]");
    }

    /**
     * {@code count} elements of {@code array} from index {@code from}, for copies to and from F32 buffers.
     *
     * @throws InvalidArgumentException if {@code array} is null, {@code from} is negative, {@code count} is not positive
     *                                  or the range passes the end of the array
     */
    static HostData of(float[] array, int from, int count) {
        Checks.notNull("array", array);
        return HostSegment.ofRange(MemorySegment.ofArray(array), HostSegment.F32, "float", array.length, from, count);
    }

    /** All of {@code array}, for copies to and from F64 buffers. */
    static HostData of(double[] array) {
        return new HostSegment(MemorySegment.ofArray(Checks.notNull("array", array)), HostSegment.F64, "double[]");
    }

    /** {@code count} elements of {@code array} from index {@code from}; checked as {@link #of(float[], int, int)}. */
    static HostData of(double[] array, int from, int count) {
        Checks.notNull("array", array);
        return HostSegment.ofRange(MemorySegment.ofArray(array), HostSegment.F64, "double", array.length, from, count);
    }

    /** All of {@code array}, for copies to and from I32 and U32 buffers. */
    static HostData of(int[] array) {
        return new HostSegment(MemorySegment.ofArray(Checks.notNull("array", array)), HostSegment.INT, "int[]");
    }

    /** {@code count} elements of {@code array} from index {@code from}; checked as {@link #of(float[], int, int)}. */
    static HostData of(int[] array, int from, int count) {
        Checks.notNull("array", array);
        return HostSegment.ofRange(MemorySegment.ofArray(array), HostSegment.INT, "int", array.length, from, count);
    }

    /** All of {@code array}, for copies to and from I64 and U64 buffers. */
    static HostData of(long[] array) {
        return new HostSegment(MemorySegment.ofArray(Checks.notNull("array", array)), HostSegment.LONG, "long[]");
    }

    /** {@code count} elements of {@code array} from index {@code from}; checked as {@link #of(float[], int, int)}. */
    static HostData of(long[] array, int from, int count) {
        Checks.notNull("array", array);
        return HostSegment.ofRange(MemorySegment.ofArray(array), HostSegment.LONG, "long", array.length, from, count);
    }

    /** All of {@code array}, for copies to and from I16, U16, F16 and BF16 buffers (the raw bits of the last two). */
    static HostData of(short[] array) {
        return new HostSegment(MemorySegment.ofArray(Checks.notNull("array", array)), HostSegment.SHORT, "short[]");
    }

    /** {@code count} elements of {@code array} from index {@code from}; checked as {@link #of(float[], int, int)}. */
    static HostData of(short[] array, int from, int count) {
        Checks.notNull("array", array);
        return HostSegment.ofRange(MemorySegment.ofArray(array), HostSegment.SHORT, "short", array.length, from, count);
    }

    /** All of {@code array}, for copies to and from I8, U8 and BOOL buffers. */
    static HostData of(byte[] array) {
        return new HostSegment(MemorySegment.ofArray(Checks.notNull("array", array)), HostSegment.BYTE, "byte[]");
    }

    /** {@code count} elements of {@code array} from index {@code from}; checked as {@link #of(float[], int, int)}. */
    static HostData of(byte[] array, int from, int count) {
        Checks.notNull("array", array);
        return HostSegment.ofRange(MemorySegment.ofArray(array), HostSegment.BYTE, "byte", array.length, from, count);
    }

    /**
     * The bytes of {@code buffer} from its position to its limit as they are at this call, direct or heap; the copy
     * moves neither. For a range, pass {@code buffer.slice(index, length)}. A read-only buffer may be a source only: as a
     * destination the copy refuses it at its call with {@link InvalidArgumentException}.
     *
     * @throws InvalidArgumentException if {@code buffer} is null
     */
    static HostData of(ByteBuffer buffer) {
        Checks.notNull("buffer", buffer);
        return new HostSegment(MemorySegment.ofBuffer(buffer), null, "ByteBuffer");
    }

    /**
     * The bytes of {@code segment}: native memory of a shared or automatic arena, or heap memory. For a range, pass
     * {@code segment.asSlice(offset, bytes)}. The copy refuses, at its call, a segment of a confined arena (it reads and
     * writes host memory on threads of its own), of a closed arena, and a read-only segment as a destination.
     *
     * @throws InvalidArgumentException if {@code segment} is null
     */
    static HostData of(MemorySegment segment) {
        Checks.notNull("segment", segment);
        return new HostSegment(segment, null, "segment");
    }
}
