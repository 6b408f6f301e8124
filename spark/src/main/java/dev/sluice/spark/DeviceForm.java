package dev.sluice.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Arrow vectors between the types a stage declares and the form the pipeline carries ({@link SparkTypes#deviceField}):
 * a date's or timestamp's buffers are those of an Int(32) or Int(64) vector already, so they change type with no copy;
 * a boolean's bits are unpacked into a byte a row on the way in and packed again on the way out (one pass over the
 * column on the host, which the device's byte-a-row layout costs).
 */
final class DeviceForm {

    private DeviceForm() {
    }

    /**
     * {@code vector} (taken from an input batch) in the pipeline's form, with 0 in each null's value slot (Arrow leaves
     * it undefined) and no bytes in a null string's; {@code vector} is closed where another vector replaces it.
     */
    static FieldVector toDevice(FieldVector vector) {
        Field f = vector.getField();
        ArrowType t = f.getType();
        if (t instanceof ArrowType.Bool) {
            try (BitVector bits = (BitVector) vector) {
                return unpack(bits, SparkTypes.deviceField(f));
            }
        }
        if (SparkTypes.changesForm(f)) {
            Validity.zeroNullSlots(vector);
            return retype(vector, SparkTypes.deviceField(f));
        }
        if (SparkTypes.isVariableWidth(t)) {
            return emptyNulls((BaseVariableWidthVector) vector);
        }
        Validity.zeroNullSlots(vector);
        return vector;
    }

    /**
     * {@code result} (of the pipeline's form) with the types of {@code fields}, its columns in order: those whose form
     * changes are replaced (and closed), the others kept in the new root.
     */
    static VectorSchemaRoot toDeclared(VectorSchemaRoot result, List<Field> fields) {
        if (fields.stream().noneMatch(SparkTypes::changesForm)) {
            return result;
        }
        List<FieldVector> vectors = new ArrayList<>(fields.size());
        List<FieldVector> from = result.getFieldVectors();
        try {
            for (int c = 0; c < fields.size(); c++) {
                Field f = fields.get(c);
                FieldVector v = from.get(c);
                if (f.getType() instanceof ArrowType.Bool) {
                    vectors.add(pack((UInt1Vector) v, f));
                } else if (SparkTypes.changesForm(f)) {
                    vectors.add(retype(v, f));
                } else {
                    vectors.add(v);
                }
            }
        } catch (RuntimeException e) {
            result.close(); // closing a vector twice is harmless: those replaced were closed already
            vectors.forEach(FieldVector::close);
            throw e;
        }
        return new VectorSchemaRoot(fields, vectors, result.getRowCount());
    }

    /** A vector of {@code field}'s type over {@code vector}'s buffers (of the same layout), which is then closed. */
    private static FieldVector retype(FieldVector vector, Field field) {
        FieldVector to = field.createVector(vector.getAllocator());
        try (vector) {
            int n = vector.getValueCount();
            if (n > 0) {
                to.loadFieldBuffers(new ArrowFieldNode(n, vector.getNullCount()), vector.getFieldBuffers());
            }
            return to;
        } catch (RuntimeException e) {
            to.close();
            throw e;
        }
    }

    /** Arrow's booleans as a byte a row (0 or 1, 0 for a null), with their validity. */
    private static UInt1Vector unpack(BitVector bits, Field deviceField) {
        int n = bits.getValueCount();
        UInt1Vector bytes = (UInt1Vector) deviceField.createVector(bits.getAllocator());
        try {
            bytes.allocateNew(Math.max(n, 1));
            ArrowBuf data = bytes.getDataBuffer();
            for (int i = 0; i < n; i++) {
                if (bits.isNull(i)) {
                    data.setByte(i, 0);
                    bytes.setNull(i);
                } else {
                    data.setByte(i, bits.get(i));
                    BitVectorHelper.setBit(bytes.getValidityBuffer(), i);
                }
            }
            bytes.setValueCount(n);
            return bytes;
        } catch (RuntimeException e) {
            bytes.close();
            throw e;
        }
    }

    /** A byte a row (any byte but 0 is true) as Arrow's booleans, with the same validity; closes {@code bytes}. */
    private static BitVector pack(UInt1Vector bytes, Field field) {
        try (bytes) {
            int n = bytes.getValueCount();
            BitVector bits = (BitVector) field.createVector(bytes.getAllocator());
            try {
                bits.allocateNew(Math.max(n, 1));
                ArrowBuf data = bytes.getDataBuffer();
                ArrowBuf to = bits.getDataBuffer();
                for (int i = 0; i < n; i++) {
                    if (data.getByte(i) != 0) {
                        BitVectorHelper.setBit(to, i);
                    }
                }
                if (n > 0) {
                    bits.getValidityBuffer().setBytes(0, bytes.getValidityBuffer(), 0, (n + 7) / 8);
                }
                bits.setValueCount(n);
                return bits;
            } catch (RuntimeException e) {
                bits.close();
                throw e;
            }
        }
    }

    /**
     * {@code vector}, or where a null holds bytes (Arrow allows it), a copy whose nulls are empty, so that the device
     * sees a null string as an empty one whatever the batch's writer left there.
     */
    private static FieldVector emptyNulls(BaseVariableWidthVector vector) {
        int n = vector.getValueCount();
        if (vector.getNullCount() == 0) {
            return vector;
        }
        ArrowBuf offsets = vector.getOffsetBuffer();
        boolean filled = false;
        for (int i = 0; i < n && !filled; i++) {
            filled = vector.isNull(i) && offsets.getInt(4L * i) != offsets.getInt(4L * (i + 1));
        }
        if (!filled) {
            return vector;
        }
        BaseVariableWidthVector copy = (BaseVariableWidthVector) vector.getField().createVector(vector.getAllocator());
        try (vector) {
            copy.allocateNew(Math.max(1, offsets.getInt(4L * n)), n);
            for (int i = 0; i < n; i++) {
                if (vector.isNull(i)) {
                    copy.setNull(i);
                } else if (copy instanceof VarCharVector s) {
                    s.setSafe(i, ((VarCharVector) vector).get(i));
                } else {
                    ((VarBinaryVector) copy).setSafe(i, ((VarBinaryVector) vector).get(i));
                }
            }
            copy.setValueCount(n);
            return copy;
        } catch (RuntimeException e) {
            copy.close();
            throw e;
        }
    }
}
