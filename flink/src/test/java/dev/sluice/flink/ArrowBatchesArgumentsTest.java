package dev.sluice.flink;

import static dev.sluice.testing.Attacks.assertRefused;

import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Bad arguments of {@link ArrowBatches}' builder and of {@link ArrowBatch}, refused at the call naming them: no cluster. */
class ArrowBatchesArgumentsTest {

    @Test
    void aDictionaryEncodedOutputIsRefusedNamingTheField() {
        // Accepted, every element would fail writing its result: IPC needs the dictionary, which the stage has not.
        Field encoded = new Field("y", new FieldType(true, new ArrowType.Int(32, true),
                new DictionaryEncoding(1L, false, null)), null);
        assertRefused("field", () -> ArrowBatches.kernel(() -> ArrowBatchesTest.FMA).output(encoded),
                "dictionary-encoded");
    }

    @Test
    void aRootWithADictionaryEncodedColumnIsRefusedNamingTheRootAndTheColumn() {
        Field encoded = new Field("code", new FieldType(true, new ArrowType.Int(32, true),
                new DictionaryEncoding(1L, false, null)), null);
        try (RootAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(encoded)), allocator)) {
            root.allocateNew();
            root.setRowCount(0);
            assertRefused("root", () -> ArrowBatch.of(root), "column code is dictionary-encoded");
        }
    }
}
