package dev.sluice.flink;

import dev.sluice.InvalidArgumentException;
import java.io.IOException;
import java.io.Serial;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Another type information whose values are <b>never written after they are emitted</b>, by the operator that emits
 * them or by anyone downstream: Flink may then hand an element on without copying it. Declare it on the stream that
 * feeds a {@link SluiceAsyncFunction} when its elements are large:
 *
 * <pre>{@code
 * DataStream<float[]> batches = source.map(r -> toBatch(r))    // a new array per element, never written again
 *         .returns(ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO));
 * AsyncDataStream.unorderedWait(batches, function, 30, TimeUnit.SECONDS, function.lanes());
 * }</pre>
 *
 * <p><b>What it saves.</b> Flink copies each element through its type's serializer on the subtask's thread: with object
 * reuse on, the async operator copies every input before it calls the function; with object reuse off, every edge
 * between chained operators copies what crosses it. For a {@code float[]} of 4 MiB that is an allocation and a memory
 * copy per element, which can bound a subtask below the speed of its device. This type's serializer {@link
 * Serializer#copy(Object) copies} nothing: it returns the element itself and says {@link Serializer#isImmutableType()
 * it is immutable}. It is what {@link ArrowBatch#TYPE} does for Arrow batches, for any type.
 *
 * <p><b>Serialization is unchanged.</b> Network edges, state, checkpoints and savepoints write and read every value
 * through the wrapped type's serializer, byte for byte; the serializer's {@link Serializer.Snapshot snapshot} restores
 * it and checks compatibility through the wrapped serializer's snapshot, and state written before the type was wrapped
 * (a savepoint of the job without it) restores. The way back does not: state written with this type and restored where
 * the type is no longer wrapped is judged by the plain type's serializer, which does not know this snapshot and calls
 * it incompatible, so a job keeps the wrapper on a stream whose elements its checkpoints hold (the async operator's
 * input) for as long as it restores them. A value read from bytes is always a new one, never read into an instance
 * Flink offers for reuse, since that instance may be an element handed out before.
 *
 * <p><b>If the contract is broken.</b> An element is then shared, not copied: an operator that writes a value after
 * emitting it (a map reusing one output array, an operator downstream writing its input in place) changes what every
 * other operator holding it sees, what the GPU function reads while its staging copy of the element runs, and what a
 * checkpoint of the async operator's elements in flight stores. Nothing detects it.
 *
 * <p>The other methods answer as the wrapped type does, but a composite type wrapped is no longer a
 * {@code CompositeType} to Flink (its fields cannot be addressed by name or position): wrap the type of the stream that
 * feeds the function, and never a key's type.
 *
 * @param <T> the values' class
 */
public final class ImmutableTypeInfo<T> extends TypeInformation<T> {

    @Serial
    private static final long serialVersionUID = 1L;

    /** The wrapped type, which answers everything but the serializer's copies. */
    private final TypeInformation<T> type;

    private ImmutableTypeInfo(TypeInformation<T> type) {
        this.type = type;
    }

    /**
     * {@code type} declared immutable: its values are never written after they are emitted.
     *
     * @param type the type to wrap; an {@code ImmutableTypeInfo} is returned as it is
     * @param <T> the values' class
     * @return the immutable type of {@code type}'s values
     * @throws InvalidArgumentException naming {@code type} if it is null
     */
    public static <T> ImmutableTypeInfo<T> of(TypeInformation<T> type) {
        if (type == null) {
            throw new InvalidArgumentException("type", "must not be null: ImmutableTypeInfo.of needs the type information to wrap");
        }
        if (type instanceof ImmutableTypeInfo<T> immutable) {
            return immutable;
        }
        return new ImmutableTypeInfo<>(type);
    }

    /**
     * The type Flink extracts from {@code typeClass} ({@link TypeInformation#of(Class)}), declared immutable. It hides
     * that method, which would otherwise be reachable as {@code ImmutableTypeInfo.of(float[].class)} and return a type
     * that is not immutable.
     *
     * @param typeClass the values' class, as {@code float[].class}
     * @param <T> the values' class
     * @return the immutable type of {@code typeClass}'s values
     * @throws InvalidArgumentException naming {@code typeClass} if it is null
     */
    public static <T> ImmutableTypeInfo<T> of(Class<T> typeClass) {
        if (typeClass == null) {
            throw new InvalidArgumentException("typeClass", "must not be null: ImmutableTypeInfo.of needs the values' class");
        }
        return of(TypeInformation.of(typeClass));
    }

    /**
     * The type Flink extracts from {@code typeHint} ({@link TypeInformation#of(TypeHint)}), declared immutable. It hides
     * that method, for the reason {@link #of(Class)} gives.
     *
     * @param typeHint the values' type, as {@code new TypeHint<Tuple2<String, float[]>>() {}}
     * @param <T> the values' type
     * @return the immutable type of {@code typeHint}'s values
     * @throws InvalidArgumentException naming {@code typeHint} if it is null
     */
    public static <T> ImmutableTypeInfo<T> of(TypeHint<T> typeHint) {
        if (typeHint == null) {
            throw new InvalidArgumentException("typeHint", "must not be null: ImmutableTypeInfo.of needs the values' type");
        }
        return of(TypeInformation.of(typeHint));
    }

    /**
     * The wrapped type.
     *
     * @return the type information this one declares immutable
     */
    public TypeInformation<T> wrapped() {
        return type;
    }

    /** As the wrapped type. */
    @Override
    public boolean isBasicType() {
        return type.isBasicType();
    }

    /** As the wrapped type. */
    @Override
    public boolean isTupleType() {
        return type.isTupleType();
    }

    /** As the wrapped type. */
    @Override
    public int getArity() {
        return type.getArity();
    }

    /** As the wrapped type. */
    @Override
    public int getTotalFields() {
        return type.getTotalFields();
    }

    /** As the wrapped type. */
    @Override
    public Class<T> getTypeClass() {
        return type.getTypeClass();
    }

    /** As the wrapped type. */
    @Override
    public Map<String, TypeInformation<?>> getGenericParameters() {
        return type.getGenericParameters();
    }

    /** As the wrapped type. */
    @Override
    public boolean isKeyType() {
        return type.isKeyType();
    }

    /** As the wrapped type. */
    @Override
    public boolean isSortKeyType() {
        return type.isSortKeyType();
    }

    /**
     * The wrapped type's serializer for {@code config}, declared immutable: it copies nothing.
     *
     * @param config Flink's serializer configuration, passed on to the wrapped type
     * @return the serializer
     */
    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return new Serializer<>(type.createSerializer(config));
    }

    /** {@code Immutable(wrapped)}, as {@code Immutable(float[])}. */
    @Override
    public String toString() {
        return "Immutable(" + type + ")";
    }

    /** An {@code ImmutableTypeInfo} of an equal wrapped type. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ImmutableTypeInfo<?> other && other.canEqual(this) && type.equals(other.type);
    }

    @Override
    public int hashCode() {
        return 31 * "Immutable".hashCode() + type.hashCode();
    }

    /** Whether {@code o} is an {@code ImmutableTypeInfo}. */
    @Override
    public boolean canEqual(Object o) {
        return o instanceof ImmutableTypeInfo;
    }

    /**
     * The serializer of {@link ImmutableTypeInfo}: the wrapped serializer's bytes, with no copy of a value in memory. As
     * thread-safe as the wrapped serializer; {@link #duplicate()} duplicates it.
     *
     * @param <T> the values' class
     */
    public static final class Serializer<T> extends TypeSerializer<T> {

        @Serial
        private static final long serialVersionUID = 1L;

        /** The wrapped serializer, which writes and reads every value. */
        private final TypeSerializer<T> wrapped;

        Serializer(TypeSerializer<T> wrapped) {
            this.wrapped = wrapped;
        }

        /**
         * The wrapped serializer.
         *
         * @return the serializer that writes and reads the values
         */
        public TypeSerializer<T> wrapped() {
            return wrapped;
        }

        /** True: values are never written after they are emitted, so Flink may pass them on without a copy. */
        @Override
        public boolean isImmutableType() {
            return true;
        }

        /** This serializer when the wrapped one is stateless (its duplicate is itself), else one over its duplicate. */
        @Override
        public TypeSerializer<T> duplicate() {
            TypeSerializer<T> duplicate = wrapped.duplicate();
            return duplicate == wrapped ? this : new Serializer<>(duplicate);
        }

        /** The wrapped serializer's new instance. */
        @Override
        public T createInstance() {
            return wrapped.createInstance();
        }

        /** {@code from} itself: values are immutable. */
        @Override
        public T copy(T from) {
            return from;
        }

        /** {@code from} itself: values are immutable, and {@code reuse} is left as it is. */
        @Override
        public T copy(T from, T reuse) {
            return from;
        }

        /** The wrapped serializer's length: a fixed byte count, or -1. */
        @Override
        public int getLength() {
            return wrapped.getLength();
        }

        /** Writes {@code record} through the wrapped serializer. */
        @Override
        public void serialize(T record, DataOutputView target) throws IOException {
            wrapped.serialize(record, target);
        }

        /** Reads a new value through the wrapped serializer. */
        @Override
        public T deserialize(DataInputView source) throws IOException {
            return wrapped.deserialize(source);
        }

        /**
         * As {@link #deserialize(DataInputView)}: a new value, never read into {@code reuse}, which may be an element
         * handed out before and still held (by the async operator's queue, or a checkpoint in progress).
         */
        @Override
        public T deserialize(T reuse, DataInputView source) throws IOException {
            return wrapped.deserialize(source);
        }

        /** Copies one serialized value through the wrapped serializer. */
        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            wrapped.copy(source, target);
        }

        /** A serializer of this class over an equal wrapped serializer. */
        @Override
        public boolean equals(Object o) {
            return o instanceof Serializer<?> other && wrapped.equals(other.wrapped);
        }

        @Override
        public int hashCode() {
            return 31 * "Immutable".hashCode() + wrapped.hashCode();
        }

        /** {@code Immutable(wrapped)}. */
        @Override
        public String toString() {
            return "Immutable(" + wrapped + ")";
        }

        /** The snapshot, which holds the wrapped serializer's. */
        @Override
        public TypeSerializerSnapshot<T> snapshotConfiguration() {
            return new Snapshot<>(this);
        }

        /**
         * The serializer's snapshot in checkpoints and savepoints: the wrapped serializer's snapshot, nested. Restoring
         * restores the wrapped serializer and wraps it; compatibility is the wrapped serializer's (as is, after
         * migration, with a reconfigured serializer, or incompatible).
         *
         * @param <T> the values' class
         */
        public static final class Snapshot<T> extends CompositeTypeSerializerSnapshot<T, Serializer<T>> {

            /** The snapshot format of this class (the wrapped snapshot has its own). */
            private static final int VERSION = 1;

            /** For Flink, which instantiates it by reflection when it restores, then reads it. */
            public Snapshot() {
            }

            Snapshot(Serializer<T> serializer) {
                super(serializer);
            }

            /**
             * Whether this snapshot's serializer reads what {@code oldSnapshot}'s wrote. A snapshot of this class
             * decides by the two wrapped snapshots; any other is of state written before the type was declared
             * immutable, in the wrapped serializer's bytes, and the wrapped snapshot decides alone: a job that wraps
             * the type of a stream keeps its checkpoints and savepoints.
             *
             * @param oldSnapshot the snapshot the state was written with
             * @return the compatibility, with a reconfigured serializer wrapped as this class's
             */
            @Override
            public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> oldSnapshot) {
                if (oldSnapshot instanceof Snapshot) {
                    return super.resolveSchemaCompatibility(oldSnapshot);
                }
                TypeSerializerSchemaCompatibility<T> wrapped = wrappedSnapshot().resolveSchemaCompatibility(oldSnapshot);
                return wrapped.isCompatibleWithReconfiguredSerializer()
                        ? TypeSerializerSchemaCompatibility.compatibleWithReconfiguredSerializer(
                                new Serializer<>(wrapped.getReconfiguredSerializer()))
                        : wrapped;
            }

            // The one nested snapshot is the wrapped serializer's: a snapshot of T.
            @SuppressWarnings("unchecked")
            private TypeSerializerSnapshot<T> wrappedSnapshot() {
                return (TypeSerializerSnapshot<T>) getNestedSerializerSnapshots()[0];
            }

            /** The version of this class's own part of the snapshot, which holds nothing but the nested one. */
            @Override
            protected int getCurrentOuterSnapshotVersion() {
                return VERSION;
            }

            /** The wrapped serializer, whose snapshot this one nests. */
            @Override
            protected TypeSerializer<?>[] getNestedSerializers(Serializer<T> outer) {
                return new TypeSerializer<?>[] {outer.wrapped};
            }

            /** A serializer over the restored (or reconfigured) wrapped serializer. */
            @SuppressWarnings("unchecked")
            @Override
            protected Serializer<T> createOuterSerializerWithNestedSerializers(TypeSerializer<?>[] nested) {
                // The one nested serializer is the one getNestedSerializers gave, or its restored or reconfigured
                // successor: a serializer of T.
                return new Serializer<>((TypeSerializer<T>) nested[0]);
            }
        }
    }
}
