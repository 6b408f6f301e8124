package dev.sluice.hip;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sluice.spi.LaunchArguments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The native argument block of {@code hipModuleLaunchKernel}, one per stream and reused for every launch (the
 * stream's lock serialises launches): an array of {@code void*}, entry i pointing at 8-byte value slot i.
 * The pointers are written once when the block grows; a launch writes only the values, so it allocates
 * nothing. Each value slot holds the argument's bits little-endian, so a 1-, 2- or 4-byte scalar sits at the
 * slot's address as the kernel expects; a pointer argument holds the buffer's device address plus offset.
 * The runtime copies the values at the call, so the block may be rewritten as soon as it returns.
 */
final class LaunchBlock implements AutoCloseable {

    private final Arena arena = Arena.ofShared();
    private MemorySegment block = MemorySegment.NULL;
    private int capacity;

    /** Writes {@code args} into the block; returns the address of the {@code void*} array. */
    long fill(LaunchArguments args) {
        int n = args.count();
        ensure(n);
        MemorySegment values = block.asSlice((long) capacity * 8);
        for (int i = 0; i < n; i++) {
            long v = args.isPointer(i)
                    ? args.memory(i).address() + args.byteOffset(i)
                    : args.bits(i);
            values.setAtIndex(JAVA_LONG, i, v);
        }
        return block.address();
    }

    /** Writes raw 64-bit values (internal kernels); returns the address of the {@code void*} array. */
    long fill(long... raw) {
        ensure(raw.length);
        MemorySegment values = block.asSlice((long) capacity * 8);
        for (int i = 0; i < raw.length; i++) {
            values.setAtIndex(JAVA_LONG, i, raw[i]);
        }
        return block.address();
    }

    private void ensure(int n) {
        if (n <= capacity && capacity > 0) {
            return;
        }
        int c = Math.max(16, Integer.highestOneBit(Math.max(n, 1) - 1) << 1);
        MemorySegment b = arena.allocate((long) c * 16, 8);
        for (int i = 0; i < c; i++) {
            b.setAtIndex(JAVA_LONG, i, b.address() + (long) (c + i) * 8);
        }
        block = b;
        capacity = c;
    }

    @Override
    public void close() {
        arena.close();
    }
}
