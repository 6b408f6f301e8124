package dev.sluice.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Nulls of nullable input columns, with SQL's semantics, on the host: the device work runs on every row, a null row's
 * value slot holding 0 of its type ({@link #zeroNullSlots}), and each output column's row is null where any input column
 * the device work reads is null there ({@link #apply}), computed from the input batch's validity bitmaps once its result
 * has come back (the input batch is held until then).
 */
final class Validity {

    private Validity() {
    }

    /**
     * Writes 0 into the value slot of each null row of {@code vector} (Arrow leaves a null's slot undefined), so that
     * the device work reads 0 there.
     */
    static void zeroNullSlots(FieldVector vector) {
        if (vector.getNullCount() == 0 || !(vector instanceof BaseFixedWidthVector v)) {
            return;
        }
        int width = v.getTypeWidth();
        ArrowBuf data = v.getDataBuffer();
        for (int i = 0; i < v.getValueCount(); i++) {
            if (v.isNull(i)) {
                data.setZero((long) i * width, width);
            }
        }
    }

    /**
     * Sets each output column's validity in {@code result} to the AND of the validities of {@code input}'s columns
     * that the device work reads ({@code read}): for a kernel stage ({@code replace}) in place of the bitmap the
     * download brought (the kernel writes none); for an {@link ArrowStage}, ANDed into the bitmap the stage wrote.
     * Nothing is done where no output is nullable, nor for an {@link ArrowStage} where none of those columns has a null.
     */
    static void apply(VectorSchemaRoot input, List<Field> read, VectorSchemaRoot result, List<Field> outputs,
            boolean replace) {
        int rows = result.getRowCount();
        if (rows == 0 || outputs.stream().noneMatch(Field::isNullable)) {
            return; // only a nullable output's bitmap is written below
        }
        List<FieldVector> withNulls = new ArrayList<>();
        for (Field f : read) {
            FieldVector v = input.getVector(f.getName());
            if (v != null && v.getNullCount() > 0) {
                withNulls.add(v);
            }
        }
        if (withNulls.isEmpty() && !replace) {
            return;
        }
        int bytes = (rows + 7) / 8;
        byte[] mask = new byte[bytes];
        java.util.Arrays.fill(mask, (byte) 0xFF);
        for (FieldVector v : withNulls) {
            ArrowBuf b = v.getValidityBuffer();
            for (int i = 0; i < bytes; i++) {
                mask[i] &= b.getByte(i);
            }
        }
        for (Field o : outputs) {
            FieldVector v = result.getVector(o.getName());
            if (v == null || !o.isNullable()) {
                continue; // a non-nullable output's inputs are all non-nullable (the builder checks): no nulls
            }
            ArrowBuf b = v.getValidityBuffer();
            for (int i = 0; i < bytes; i++) {
                b.setByte(i, replace ? mask[i] : (byte) (b.getByte(i) & mask[i]));
            }
        }
    }
}
