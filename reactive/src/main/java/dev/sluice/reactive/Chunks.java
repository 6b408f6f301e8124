package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.HostBuffer;
import dev.sluice.InvalidArgumentException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The chunk kinds {@link GpuPipeline} reads and emits: Java arrays of each primitive type, {@link ByteBuffer}s,
 * {@link MemorySegment}s, and (as input only) {@link HostBuffer}s uploaded without staging. Emitted arrays,
 * buffers and segments are new and owned by the subscriber; they are the only per-chunk allocation of the
 * pipeline. For output without staging or a host copy, see {@link ChunkTarget}.
 */
public final class Chunks {

    private Chunks() {
    }

    /** {@code float[]} chunks of {@link DType#F32}. */
    public static ChunkCodec<float[]> floats() {
        return FLOATS;
    }

    /** {@code double[]} chunks of {@link DType#F64}. */
    public static ChunkCodec<double[]> doubles() {
        return DOUBLES;
    }

    /** {@code int[]} chunks of {@link DType#I32} or {@link DType#U32}. */
    public static ChunkCodec<int[]> ints() {
        return INTS;
    }

    /** {@code long[]} chunks of {@link DType#I64} or {@link DType#U64}. */
    public static ChunkCodec<long[]> longs() {
        return LONGS;
    }

    /** {@code short[]} chunks of a 16-bit type (I16, U16, or the bits of F16 and BF16). */
    public static ChunkCodec<short[]> shorts() {
        return SHORTS;
    }

    /** {@code byte[]} chunks of raw bytes, for any element type (the length must be a whole number of elements). */
    public static ChunkCodec<byte[]> bytes() {
        return BYTES;
    }

    /**
     * {@link ByteBuffer} chunks of any element type, read from position to limit (the position is not moved)
     * in native byte order; emitted buffers are heap buffers in native order, position 0, limit = size. A direct buffer
     * viewing a closed or confined arena's memory fails as a {@link #segments()} chunk does.
     */
    public static ChunkCodec<ByteBuffer> byteBuffers() {
        return BYTE_BUFFERS;
    }

    /**
     * {@link MemorySegment} chunks of any element type (native or heap); emitted segments are heap segments
     * aligned to 8 bytes, of exactly the result's size. A chunk of a closed arena, or of a confined one (the pipeline
     * copies chunks on threads of its own), fails with an {@link InvalidArgumentException} naming {@code chunk}.
     */
    public static ChunkCodec<MemorySegment> segments() {
        return SEGMENTS;
    }

    /**
     * {@link HostBuffer} chunks: a pinned buffer of the input type whose context the lane's
     * {@linkplain dev.sluice.DeviceContext#sharesPinnedMemoryWith shares pinned memory} with (its own; on CUDA, HIP
     * and the CPU simulator, any of the backend's) is uploaded directly, with no copy to the lane's staging buffer
     * (others are staged). Zero-copy has a price: the subscriber must
     * not change such a buffer until the result of its chunk has been emitted (or the {@code Flux} has
     * terminated), and the pipeline does not close it.
     */
    public static ChunkSource<HostBuffer> hostBuffers() {
        return HOST_BUFFERS;
    }

    // ---------------------------------------------------------------- arrays

    private abstract static class ArrayCodec<A> implements ChunkCodec<A> {
        private final Set<DType> types;
        private final int elementBytes;

        ArrayCodec(int elementBytes, DType first, DType... rest) {
            this.types = EnumSet.of(first, rest);
            this.elementBytes = elementBytes;
        }

        abstract int length(A array);

        @Override
        public boolean accepts(DType type) {
            return types.contains(type);
        }

        @Override
        public long elements(A chunk, DType type) {
            return wholeElements(bytes(chunk), type);
        }

        /** The bytes of {@code chunk}'s elements. */
        final long bytes(A chunk) {
            return (long) length(chunk) * elementBytes;
        }

        @Override
        public String toString() {
            return getClass().getSimpleName();
        }
    }

    private static final ChunkCodec<float[]> FLOATS = checked("Chunks.floats()", new ArrayCodec<>(4, DType.F32) {
        @Override
        int length(float[] a) {
            return a.length;
        }

        @Override
        public MemorySegment segment(float[] chunk) {
            return MemorySegment.ofArray(chunk);
        }

        @Override
        public float[] allocate(DType type, long elements) {
            return new float[toInt(elements)];
        }

        @Override
        public void copyTo(float[] chunk, MemorySegment staging) {
            MemorySegment.copy(chunk, 0, staging, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, chunk.length);
        }

        @Override
        public float[] read(MemorySegment result, DType type, long elements) {
            float[] out = new float[toInt(elements)];
            MemorySegment.copy(result, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, out, 0, out.length);
            return out;
        }
    });

    private static final ChunkCodec<double[]> DOUBLES = checked("Chunks.doubles()", new ArrayCodec<>(8, DType.F64) {
        @Override
        int length(double[] a) {
            return a.length;
        }

        @Override
        public MemorySegment segment(double[] chunk) {
            return MemorySegment.ofArray(chunk);
        }

        @Override
        public double[] allocate(DType type, long elements) {
            return new double[toInt(elements)];
        }

        @Override
        public void copyTo(double[] chunk, MemorySegment staging) {
            MemorySegment.copy(chunk, 0, staging, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, chunk.length);
        }

        @Override
        public double[] read(MemorySegment result, DType type, long elements) {
            double[] out = new double[toInt(elements)];
            MemorySegment.copy(result, ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, out, 0, out.length);
            return out;
        }
    });

    private static final ChunkCodec<int[]> INTS = checked("Chunks.ints()", new ArrayCodec<>(4, DType.I32, DType.U32) {
        @Override
        int length(int[] a) {
            return a.length;
        }

        @Override
        public MemorySegment segment(int[] chunk) {
            return MemorySegment.ofArray(chunk);
        }

        @Override
        public int[] allocate(DType type, long elements) {
            return new int[toInt(elements)];
        }

        @Override
        public void copyTo(int[] chunk, MemorySegment staging) {
            MemorySegment.copy(chunk, 0, staging, ValueLayout.JAVA_INT_UNALIGNED, 0, chunk.length);
        }

        @Override
        public int[] read(MemorySegment result, DType type, long elements) {
            int[] out = new int[toInt(elements)];
            MemorySegment.copy(result, ValueLayout.JAVA_INT_UNALIGNED, 0, out, 0, out.length);
            return out;
        }
    });

    private static final ChunkCodec<long[]> LONGS = checked("Chunks.longs()", new ArrayCodec<>(8, DType.I64, DType.U64) {
        @Override
        int length(long[] a) {
            return a.length;
        }

        @Override
        public MemorySegment segment(long[] chunk) {
            return MemorySegment.ofArray(chunk);
        }

        @Override
        public long[] allocate(DType type, long elements) {
            return new long[toInt(elements)];
        }

        @Override
        public void copyTo(long[] chunk, MemorySegment staging) {
            MemorySegment.copy(chunk, 0, staging, ValueLayout.JAVA_LONG_UNALIGNED, 0, chunk.length);
        }

        @Override
        public long[] read(MemorySegment result, DType type, long elements) {
            long[] out = new long[toInt(elements)];
            MemorySegment.copy(result, ValueLayout.JAVA_LONG_UNALIGNED, 0, out, 0, out.length);
            return out;
        }
    });

    private static final ChunkCodec<short[]> SHORTS = checked("Chunks.shorts()", new ArrayCodec<>(2, DType.I16, DType.U16, DType.F16, DType.BF16) {
        @Override
        int length(short[] a) {
            return a.length;
        }

        @Override
        public MemorySegment segment(short[] chunk) {
            return MemorySegment.ofArray(chunk);
        }

        @Override
        public short[] allocate(DType type, long elements) {
            return new short[toInt(elements)];
        }

        @Override
        public void copyTo(short[] chunk, MemorySegment staging) {
            MemorySegment.copy(chunk, 0, staging, ValueLayout.JAVA_SHORT_UNALIGNED, 0, chunk.length);
        }

        @Override
        public short[] read(MemorySegment result, DType type, long elements) {
            short[] out = new short[toInt(elements)];
            MemorySegment.copy(result, ValueLayout.JAVA_SHORT_UNALIGNED, 0, out, 0, out.length);
            return out;
        }
    });

    private static final ChunkCodec<byte[]> BYTES = checked("Chunks.bytes()", new ArrayCodec<>(1, DType.BOOL, DType.values()) {
        @Override
        int length(byte[] a) {
            return a.length;
        }

        @Override
        public MemorySegment segment(byte[] chunk) {
            return MemorySegment.ofArray(chunk);
        }

        @Override
        public byte[] allocate(DType type, long elements) {
            return new byte[toInt(elements * type.byteSize())];
        }

        @Override
        public void copyTo(byte[] chunk, MemorySegment staging) {
            MemorySegment.copy(chunk, 0, staging, ValueLayout.JAVA_BYTE, 0, chunk.length);
        }

        @Override
        public byte[] read(MemorySegment result, DType type, long elements) {
            byte[] out = new byte[toInt(elements * type.byteSize())];
            MemorySegment.copy(result, ValueLayout.JAVA_BYTE, 0, out, 0, out.length);
            return out;
        }
    });

    // ---------------------------------------------------------------- buffers and segments

    private static final ChunkCodec<ByteBuffer> BYTE_BUFFERS = checked("Chunks.byteBuffers()", ByteBuffer::remaining, new ChunkCodec<>() {
        @Override
        public boolean accepts(@Nullable DType type) {
            return type != null;
        }

        @Override
        public long elements(ByteBuffer chunk, DType type) {
            if (chunk.isDirect()) {
                usable(MemorySegment.ofBuffer(chunk)); // a view of an arena's memory: still open, not confined
            }
            return wholeElements(chunk.remaining(), type);
        }

        @Override
        public void copyTo(ByteBuffer chunk, MemorySegment staging) {
            MemorySegment.copy(MemorySegment.ofBuffer(chunk), 0, staging, 0, staging.byteSize());
        }

        @Override
        public MemorySegment segment(ByteBuffer chunk) {
            return MemorySegment.ofBuffer(chunk);
        }

        @Override
        public ByteBuffer allocate(DType type, long elements) {
            return ByteBuffer.allocate(toInt(elements * type.byteSize())).order(ByteOrder.nativeOrder());
        }

        @Override
        public ByteBuffer read(MemorySegment result, DType type, long elements) {
            ByteBuffer out = ByteBuffer.allocate(toInt(elements * type.byteSize())).order(ByteOrder.nativeOrder());
            MemorySegment.copy(result, 0, MemorySegment.ofBuffer(out), 0, out.capacity());
            return out;
        }

        @Override
        public String toString() {
            return "Chunks.byteBuffers()";
        }
    });

    private static final ChunkCodec<MemorySegment> SEGMENTS = checked("Chunks.segments()", MemorySegment::byteSize, new ChunkCodec<>() {
        @Override
        public boolean accepts(@Nullable DType type) {
            return type != null;
        }

        @Override
        public long elements(MemorySegment chunk, DType type) {
            return wholeElements(usable(chunk).byteSize(), type);
        }

        @Override
        public void copyTo(MemorySegment chunk, MemorySegment staging) {
            MemorySegment.copy(usable(chunk), 0, staging, 0, staging.byteSize());
        }

        @Override
        public MemorySegment segment(MemorySegment chunk) {
            return usable(chunk);
        }

        @Override
        public MemorySegment allocate(DType type, long elements) {
            long bytes = elements * type.byteSize();
            // A long[] backing keeps the segment 8-byte aligned, so that any typed layout can read it.
            return MemorySegment.ofArray(new long[toInt((bytes + 7) / 8)]).asSlice(0, bytes);
        }

        @Override
        public MemorySegment read(MemorySegment result, DType type, long elements) {
            long bytes = elements * type.byteSize();
            // A long[] backing keeps the segment 8-byte aligned, so that any typed layout can read it.
            MemorySegment out = MemorySegment.ofArray(new long[toInt((bytes + 7) / 8)]).asSlice(0, bytes);
            MemorySegment.copy(result, 0, out, 0, bytes);
            return out;
        }

        @Override
        public String toString() {
            return "Chunks.segments()";
        }
    });

    private static final ChunkSource<HostBuffer> HOST_BUFFERS = new ChunkSource<>() {
        @Override
        public boolean accepts(@Nullable DType type) {
            return type != null;
        }

        @Override
        public long elements(HostBuffer chunk, DType type) {
            notNull("chunk", chunk);
            return wholeElements(chunk.byteSize(), notNull("type", type));
        }

        @Override
        public void copyTo(HostBuffer chunk, MemorySegment staging) {
            notNull("chunk", chunk);
            writable("staging", staging, chunk.byteSize());
            MemorySegment.copy(chunk.segment(), 0, staging, 0, staging.byteSize());
        }

        @Override
        public @Nullable HostBuffer pinned(HostBuffer chunk) {
            return notNull("chunk", chunk);
        }

        @Override
        public String toString() {
            return "Chunks.hostBuffers()";
        }
    };

    /**
     * {@code raw} with its arguments checked: every codec method is public API, and a bad argument (null, a negative or
     * overflowing count, a type the codec does not carry, a segment of the wrong size) got a NullPointerException,
     * NegativeArraySizeException or IndexOutOfBoundsException from inside, or a result of another type, silently.
     */
    private static <A> ChunkCodec<A> checked(String name, ArrayCodec<A> raw) {
        return checked(name, raw::bytes, raw);
    }

    /** {@code raw} with its arguments checked (see the other), {@code chunkBytes} giving a chunk's bytes. */
    private static <T> ChunkCodec<T> checked(String name, ToLongFunction<T> chunkBytes, ChunkCodec<T> raw) {
        return new ChunkCodec<>() {
            @Override
            public boolean accepts(@Nullable DType type) {
                return type != null && raw.accepts(type);
            }

            @Override
            public long elements(T chunk, DType type) {
                notNull("chunk", chunk);
                carried(this, type);
                return raw.elements(chunk, type);
            }

            @Override
            public void copyTo(T chunk, MemorySegment staging) {
                notNull("chunk", chunk);
                writable("staging", staging, chunkBytes.applyAsLong(chunk));
                raw.copyTo(chunk, staging);
            }

            @Override
            public @Nullable MemorySegment segment(T chunk) {
                return raw.segment(notNull("chunk", chunk));
            }

            @Override
            public T allocate(DType type, long elements) {
                carried(this, type);
                resultBytes(type, elements);
                return raw.allocate(type, elements);
            }

            @Override
            public T read(MemorySegment result, DType type, long elements) {
                notNull("result", result);
                carried(this, type);
                long bytes = resultBytes(type, elements);
                if (result.byteSize() < bytes) {
                    throw new InvalidArgumentException("result", result.byteSize() + " bytes cannot hold " + elements
                            + " elements of " + type + " (" + bytes + " bytes)");
                }
                return raw.read(result, type, elements);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    private static <V> V notNull(String argument, @Nullable V value) {
        if (value == null) {
            throw new InvalidArgumentException(argument, "null");
        }
        return value;
    }

    private static void carried(ChunkSource<?> codec, @Nullable DType type) {
        notNull("type", type);
        if (!codec.accepts(type)) {
            throw new InvalidArgumentException("type", codec + " cannot carry " + type + " elements");
        }
    }

    /** Checks a staging segment: writable and exactly the chunk's {@code bytes} (copyTo's contract). */
    private static void writable(String argument, @Nullable MemorySegment staging, long bytes) {
        notNull(argument, staging);
        if (staging.isReadOnly()) {
            throw new InvalidArgumentException(argument, "is read-only");
        }
        if (staging.byteSize() != bytes) {
            throw new InvalidArgumentException(argument, staging.byteSize() + " bytes; the chunk has " + bytes);
        }
    }

    /** The bytes of {@code elements} elements of {@code type}, checked: not negative, not overflowing. */
    private static long resultBytes(DType type, long elements) {
        if (elements < 0 || elements > Long.MAX_VALUE / type.byteSize()) {
            throw new InvalidArgumentException("elements", "value " + elements + " is outside 0 to "
                    + Long.MAX_VALUE / type.byteSize() + " elements of " + type);
        }
        return elements * type.byteSize();
    }

    /** A thread that is no segment's owner: a segment it cannot access is confined to another thread. */
    private static final Thread ANOTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    /**
     * A segment chunk the pipeline can read: of an arena still open, and not confined to one thread (the pipeline copies
     * on its own threads). Else the JDK's IllegalStateException ("Already closed") or WrongThreadException, from
     * whichever thread copied it, named nothing.
     */
    private static MemorySegment usable(MemorySegment chunk) {
        if (!chunk.scope().isAlive()) {
            throw new InvalidArgumentException("chunk", "segment of " + chunk.byteSize() + " bytes belongs to an arena that"
                    + " is already closed; its memory is freed");
        }
        if (!chunk.isAccessibleBy(ANOTHER_THREAD)) {
            throw new InvalidArgumentException("chunk", "segment belongs to a confined arena, which only its owner thread"
                    + " may access; the pipeline copies chunks on threads of its own: use Arena.ofShared() or Arena.ofAuto()");
        }
        return chunk;
    }

    static long wholeElements(long bytes, DType type) {
        if (bytes % type.byteSize() != 0) {
            throw new InvalidArgumentException("chunk", bytes + " bytes are not a whole number of " + type + " elements of "
                    + type.byteSize() + " bytes");
        }
        return bytes / type.byteSize();
    }

    private static int toInt(long n) {
        if (n > Integer.MAX_VALUE - 8) {
            throw new InvalidArgumentException("elements", n + " array elements do not fit a Java array");
        }
        return (int) n;
    }
}
