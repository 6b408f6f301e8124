package dev.sluice.flink;

import static dev.sluice.testing.Attacks.assertRefused;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** Bad arguments of {@link ArrowBatches}' builder, refused at the call naming them: no cluster needed. */
class ArrowBatchesArgumentsTest {

    @Test
    void aDictionaryEncodedOutputIsRefusedNamingTheField() {
        // Accepted, every element would fail writing its result: IPC needs the dictionary, which the stage has not.
        Field encoded = new Field("y", new FieldType(true, new ArrowType.Int(32, true),
                new DictionaryEncoding(1L, false, null)), null);
        assertRefused("field", () -> ArrowBatches.kernel(() -> ArrowBatchesTest.FMA).output(encoded),
                "dictionary-encoded");
    }
}
