package dev.sluice.flink;

import java.io.IOException;
import java.io.Serial;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink's type information of {@link ArrowBatch}: an atomic type written as its row count, column count and IPC bytes,
 * without Kryo (which Flink would otherwise fall back to for a class that is no POJO). Use {@link ArrowBatch#TYPE}.
 */
public final class ArrowBatchTypeInfo extends TypeInformation<ArrowBatch> {

    @Serial
    private static final long serialVersionUID = 1L;

    ArrowBatchTypeInfo() {
    }

    /** Not a basic type. */
    @Override
    public boolean isBasicType() {
        return false;
    }

    /** Not a tuple. */
    @Override
    public boolean isTupleType() {
        return false;
    }

    /** One field: the batch. */
    @Override
    public int getArity() {
        return 1;
    }

    /** One field: the batch. */
    @Override
    public int getTotalFields() {
        return 1;
    }

    /** {@link ArrowBatch}. */
    @Override
    public Class<ArrowBatch> getTypeClass() {
        return ArrowBatch.class;
    }

    /** Not a key: key by a field of the rows upstream, before they are batched. */
    @Override
    public boolean isKeyType() {
        return false;
    }

    /** The serializer, stateless. */
    @Override
    public TypeSerializer<ArrowBatch> createSerializer(SerializerConfig config) {
        return Serializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "ArrowBatch";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrowBatchTypeInfo;
    }

    @Override
    public int hashCode() {
        return ArrowBatchTypeInfo.class.hashCode();
    }

    /** Whether {@code o} can equal this. */
    @Override
    public boolean canEqual(Object o) {
        return o instanceof ArrowBatchTypeInfo;
    }

    /** What Flink's type extraction instantiates for the {@link org.apache.flink.api.common.typeinfo.TypeInfo} annotation. */
    public static final class Factory extends TypeInfoFactory<ArrowBatch> {
        /** For Flink, which instantiates it by reflection. */
        public Factory() {
        }

        /** {@link ArrowBatch#TYPE}. */
        @Override
        public TypeInformation<ArrowBatch> createTypeInfo(Type type, Map<String, TypeInformation<?>> parameters) {
            return ArrowBatch.TYPE;
        }
    }

    /** Writes a batch as its row count, column count, byte count and IPC bytes. Stateless; batches are immutable. */
    public static final class Serializer extends TypeSerializerSingleton<ArrowBatch> {

        @Serial
        private static final long serialVersionUID = 1L;

        static final Serializer INSTANCE = new Serializer();

        private static final ArrowBatch EMPTY = new ArrowBatch(new byte[0], 0, 0);

        private Serializer() {
        }

        /** Batches are immutable: Flink may pass them on without a copy. */
        @Override
        public boolean isImmutableType() {
            return true;
        }

        /** A batch of no bytes, which {@link ArrowBatch#read} refuses: Flink's reuse object, never read. */
        @Override
        public ArrowBatch createInstance() {
            return EMPTY;
        }

        /** {@code from} itself: batches are immutable. */
        @Override
        public ArrowBatch copy(ArrowBatch from) {
            return from;
        }

        /** {@code from} itself: batches are immutable. */
        @Override
        public ArrowBatch copy(ArrowBatch from, ArrowBatch reuse) {
            return from;
        }

        /** Variable: -1. */
        @Override
        public int getLength() {
            return -1;
        }

        /** Writes the row count, the column count, the byte count and the bytes. */
        @Override
        public void serialize(ArrowBatch batch, DataOutputView target) throws IOException {
            target.writeInt(batch.rowCount());
            target.writeInt(batch.columnCount());
            target.writeInt(batch.byteSize());
            target.write(batch.ipc());
        }

        /** Reads what {@link #serialize} wrote. */
        @Override
        public ArrowBatch deserialize(DataInputView source) throws IOException {
            int rows = source.readInt();
            int columns = source.readInt();
            byte[] ipc = new byte[length(source.readInt())];
            source.readFully(ipc);
            return new ArrowBatch(ipc, rows, columns);
        }

        /** A batch's byte count as read; a negative one means the stream is not one of this serializer's. */
        private static int length(int bytes) throws IOException {
            if (bytes < 0) {
                throw new IOException("corrupt ArrowBatch record: its IPC length reads " + bytes);
            }
            return bytes;
        }

        /** As {@link #deserialize(DataInputView)}: batches are immutable. */
        @Override
        public ArrowBatch deserialize(ArrowBatch reuse, DataInputView source) throws IOException {
            return deserialize(source);
        }

        /** Copies one serialized batch. */
        @Override
        public void copy(DataInputView source, DataOutputView target) throws IOException {
            target.writeInt(source.readInt());
            target.writeInt(source.readInt());
            int bytes = length(source.readInt());
            target.writeInt(bytes);
            target.write(source, bytes);
        }

        /** The snapshot, which restores the one serializer. */
        @Override
        public TypeSerializerSnapshot<ArrowBatch> snapshotConfiguration() {
            return new Snapshot();
        }

        /** The serializer's snapshot in checkpoints and savepoints. */
        public static final class Snapshot extends SimpleTypeSerializerSnapshot<ArrowBatch> {
            /** For Flink, which instantiates it by reflection when it restores. */
            public Snapshot() {
                super(() -> INSTANCE);
            }
        }
    }
}
