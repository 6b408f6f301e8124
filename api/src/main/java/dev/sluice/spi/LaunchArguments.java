package dev.sluice.spi;

import dev.sluice.DType;
import dev.sluice.KernelParam;
import java.util.Arrays;
import java.util.List;

/**
 * Kernel arguments already checked against the kernel's declared parameters and resolved to what a
 * backend needs: for a pointer parameter the {@link DeviceMemory} and a byte offset into it, for a scalar
 * the value's bits in the parameter's C type (integers sign- or zero-extended to 64 bits, {@code float}
 * as its 32 raw bits, {@code double} as its 64). One instance per stream is reused for every launch
 * under the stream's lock, so launching allocates nothing here; backends must not keep a reference
 * after {@link StreamHandle#enqueue} returns.
 */
public final class LaunchArguments {

    private List<KernelParam> params = List.of();
    private DeviceMemory[] memories = new DeviceMemory[8];
    private long[] values = new long[8];
    private int count;

    /**
     * An empty argument list. The public layer keeps one per stream and {@link #reset}s it for each launch; backends
     * receive it through {@link StreamHandle#enqueue} and need not make one.
     */
    public LaunchArguments() {
    }

    /** Starts a new argument list for {@code params}; called by the public layer. */
    public void reset(List<KernelParam> params) {
        this.params = params;
        this.count = params.size();
        if (memories.length < count) {
            memories = new DeviceMemory[count];
            values = new long[count];
        }
        Arrays.fill(memories, 0, count, null);
    }

    /** An independent copy, for a launch that is queued rather than submitted at once. */
    public LaunchArguments copy() {
        LaunchArguments c = new LaunchArguments();
        c.params = params;
        c.count = count;
        c.memories = Arrays.copyOf(memories, count);
        c.values = Arrays.copyOf(values, count);
        return c;
    }

    /**
     * Whether {@code other} holds the same arguments: the same parameters, and for each argument the same memory (the
     * same object) and offset, or the same bits.
     */
    public boolean sameValues(LaunchArguments other) {
        if (other.count != count || other.params != params && !other.params.equals(params)) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            if (other.memories[i] != memories[i] || other.values[i] != values[i]) {
                return false;
            }
        }
        return true;
    }

    /** Sets argument {@code index} to a pointer into {@code memory} at {@code byteOffset}. */
    public void setPointer(int index, DeviceMemory memory, long byteOffset) {
        memories[index] = memory;
        values[index] = byteOffset;
    }

    /** Sets scalar argument {@code index} to the raw {@code bits} of its value. */
    public void setBits(int index, long bits) {
        memories[index] = null;
        values[index] = bits;
    }

    /** The number of arguments. */
    public int count() {
        return count;
    }

    /** The declared parameter of argument {@code index}. */
    public KernelParam param(int index) {
        return params.get(index);
    }

    /** Whether argument {@code index} is a pointer. */
    public boolean isPointer(int index) {
        return params.get(index).isPointer();
    }

    /** The declared element type (pointer parameters) or value type (scalars). */
    public DType type(int index) {
        return params.get(index).type();
    }

    /** The memory of a pointer argument. */
    public DeviceMemory memory(int index) {
        DeviceMemory m = memories[index];
        if (m == null) {
            throw new IllegalStateException("argument " + index + " is not a pointer");
        }
        return m;
    }

    /** Byte offset into {@link #memory(int)} of a pointer argument. */
    public long byteOffset(int index) {
        return values[index];
    }

    /** Raw bits of a scalar argument. */
    public long bits(int index) {
        return values[index];
    }

    /** Scalar argument {@code index} as an {@code int}. */
    public int intValue(int index) {
        return (int) values[index];
    }

    /** Scalar argument {@code index} as a {@code long}. */
    public long longValue(int index) {
        return values[index];
    }

    /** Scalar argument {@code index} as a {@code float}. */
    public float floatValue(int index) {
        return Float.intBitsToFloat((int) values[index]);
    }

    /** Scalar argument {@code index} as a {@code double}. */
    public double doubleValue(int index) {
        return Double.longBitsToDouble(values[index]);
    }
}
