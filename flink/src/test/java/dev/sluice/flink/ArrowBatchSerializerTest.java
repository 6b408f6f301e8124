package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Flink's own checks of a serializer (flink-core's test base) on ArrowBatch's. */
class ArrowBatchSerializerTest extends SerializerTestBase<ArrowBatch> {

    @Override
    protected TypeSerializer<ArrowBatch> createSerializer() {
        return ArrowBatch.TYPE.createSerializer(new SerializerConfigImpl());
    }

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    protected Class<ArrowBatch> getTypeClass() {
        return ArrowBatch.class;
    }

    @Override
    protected ArrowBatch[] getTestData() {
        try (BufferAllocator allocator = new RootAllocator()) {
            return new ArrowBatch[] {batch(allocator, 0), batch(allocator, 1), batch(allocator, 1000)};
        }
    }

    /** A batch of {@code rows} rows of an int and a nullable float column. */
    private static ArrowBatch batch(BufferAllocator allocator, int rows) {
        try (IntVector id = new IntVector("id", allocator); Float4Vector x = new Float4Vector("x", allocator)) {
            id.allocateNew(rows);
            x.allocateNew(rows);
            for (int i = 0; i < rows; i++) {
                id.set(i, i);
                if (i % 3 == 0) {
                    x.setNull(i);
                } else {
                    x.set(i, i / 4f);
                }
            }
            id.setValueCount(rows);
            x.setValueCount(rows);
            try (VectorSchemaRoot root = new VectorSchemaRoot(List.of(id.getField(), x.getField()), List.of(id, x), rows)) {
                return ArrowBatch.of(root);
            }
        }
    }

    @Test
    void aCorruptLengthIsAnIOExceptionNotANegativeArraySize() throws IOException {
        DataOutputSerializer corrupt = new DataOutputSerializer(16);
        corrupt.writeInt(3); // rows
        corrupt.writeInt(2); // columns
        corrupt.writeInt(-7); // the IPC bytes' length
        TypeSerializer<ArrowBatch> serializer = createSerializer();
        IOException read = assertThrows(IOException.class,
                () -> serializer.deserialize(new DataInputDeserializer(corrupt.getCopyOfBuffer())));
        assertTrue(read.getMessage().contains("-7"), read.getMessage());
        assertThrows(IOException.class, () -> serializer.copy(new DataInputDeserializer(corrupt.getCopyOfBuffer()),
                new DataOutputSerializer(16)));
    }
}
