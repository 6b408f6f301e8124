package dev.sluice.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A field that one thread writes for every operation while another thread reads or writes the fields beside it, moved
 * to cache lines of its own. Fields of one object share lines: when the completion thread writes one of them (a
 * stream's completed sequence, its queue's head) and an enqueuing thread writes another (the stream's sequence, the
 * queue's tail) or the completion thread merely reads one beside a field the enqueuing thread writes, the line moves
 * from core to core, and each side pays a miss per operation that neither needs. An element in the middle of an array
 * with {@link #PAD} unused elements on either side (256 bytes of longs, at least 128 bytes of references) shares its
 * lines with nothing.
 */
final class OwnLine {

    /** Unused elements on either side: at least 128 bytes, since cores fetch lines in pairs. */
    private static final int PAD = 32;

    private OwnLine() {
    }

    /** A long on lines of its own. */
    static final class OfLong {
        private static final VarHandle AT = MethodHandles.arrayElementVarHandle(long[].class);
        private final long[] cell = new long[2 * PAD + 1];

        /** For a value read and written under one lock. */
        long get() {
            return cell[PAD];
        }

        void set(long value) {
            cell[PAD] = value;
        }

        long getVolatile() {
            return (long) AT.getVolatile(cell, PAD);
        }

        void setVolatile(long value) {
            AT.setVolatile(cell, PAD, value);
        }

        boolean compareAndSet(long expected, long value) {
            return AT.compareAndSet(cell, PAD, expected, value);
        }

        void setRelease(long value) {
            AT.setRelease(cell, PAD, value);
        }
    }

    /** A reference on lines of its own. */
    static final class OfReference<T> {
        private static final VarHandle AT = MethodHandles.arrayElementVarHandle(Object[].class);
        private final Object[] cell = new Object[2 * PAD + 1];

        OfReference(T value) {
            cell[PAD] = value; // published with the object that holds this one
        }

        /** For a value read and written under one lock. */
        @SuppressWarnings("unchecked")
        T get() {
            return (T) cell[PAD];
        }

        void set(T value) {
            cell[PAD] = value;
        }

        @SuppressWarnings("unchecked")
        T getVolatile() {
            return (T) AT.getVolatile(cell, PAD);
        }

        void setVolatile(T value) {
            AT.setVolatile(cell, PAD, value);
        }
    }
}
