package dev.sluice.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.InvalidArgumentException;
import java.io.IOException;
import java.util.Base64;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** ImmutableTypeInfo and its serializer: no copy in memory, the wrapped serializer's bytes and snapshot. */
class ImmutableTypeInfoTest {

    static final TypeInformation<float[]> FLOATS = PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO;

    static <T> TypeSerializer<T> serializerOf(TypeInformation<T> type) {
        return type.createSerializer(new SerializerConfigImpl());
    }

    static <T> byte[] bytesOf(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    static <T> byte[] snapshotBytes(TypeSerializer<T> serializer) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        return out.getCopyOfBuffer();
    }

    static <T> TypeSerializerSnapshot<T> readSnapshot(byte[] bytes) throws IOException {
        return TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(bytes),
                ImmutableTypeInfoTest.class.getClassLoader());
    }

    @Test
    void copyReturnsTheSameInstanceAndLeavesTheReuseObjectAlone() {
        TypeSerializer<float[]> s = serializerOf(ImmutableTypeInfo.of(FLOATS));
        float[] value = {1f, 2f, 3f};
        float[] reuse = {7f, 7f, 7f};
        assertSame(value, s.copy(value));
        assertSame(value, s.copy(value, reuse));
        assertArrayEquals(new float[] {7f, 7f, 7f}, reuse);
        assertNotSame(value, serializerOf(FLOATS).copy(value), "the wrapped serializer copies");
    }

    @Test
    void isImmutableWhereTheWrappedSerializerIsNot() {
        assertTrue(serializerOf(ImmutableTypeInfo.of(FLOATS)).isImmutableType());
        assertFalse(serializerOf(FLOATS).isImmutableType());
    }

    @Test
    void bytesAreTheWrappedSerializersAndReadBack() throws IOException {
        TypeSerializer<float[]> plain = serializerOf(FLOATS);
        TypeSerializer<float[]> immutable = serializerOf(ImmutableTypeInfo.of(FLOATS));
        float[] value = {0.5f, -1f, Float.NaN, 3e7f};
        byte[] bytes = bytesOf(immutable, value);
        assertArrayEquals(bytesOf(plain, value), bytes);
        assertArrayEquals(value, immutable.deserialize(new DataInputDeserializer(bytes)));
        assertArrayEquals(value, plain.deserialize(new DataInputDeserializer(bytes)));

        DataOutputSerializer copied = new DataOutputSerializer(64);
        immutable.copy(new DataInputDeserializer(bytes), copied);
        assertArrayEquals(bytes, copied.getCopyOfBuffer());
        assertEquals(plain.getLength(), immutable.getLength());
        assertArrayEquals(plain.createInstance(), immutable.createInstance());
    }

    @Test
    void readingNeverWritesTheReuseObject() throws IOException {
        // A tuple's own serializer reads into the reuse object; an immutable value handed out before must not change.
        TypeInformation<Tuple2<Integer, String>> pairs = Types.TUPLE(Types.INT, Types.STRING);
        TypeSerializer<Tuple2<Integer, String>> immutable = serializerOf(ImmutableTypeInfo.of(pairs));
        byte[] bytes = bytesOf(immutable, Tuple2.of(1, "one"));
        Tuple2<Integer, String> reuse = Tuple2.of(2, "two");

        Tuple2<Integer, String> read = immutable.deserialize(reuse, new DataInputDeserializer(bytes));
        assertEquals(Tuple2.of(1, "one"), read);
        assertNotSame(reuse, read);
        assertEquals(Tuple2.of(2, "two"), reuse);
        assertSame(reuse, serializerOf(pairs).deserialize(reuse, new DataInputDeserializer(bytes)),
                "the wrapped serializer reads into the reuse object");
    }

    @Test
    void duplicateIsItselfOverAStatelessSerializerAndNewOverAStatefulOne() {
        TypeSerializer<float[]> stateless = serializerOf(ImmutableTypeInfo.of(FLOATS));
        assertSame(stateless, stateless.duplicate());

        // Kryo's serializer holds its Kryo instance: its duplicate is a new serializer.
        TypeSerializer<StringBuilder> stateful = serializerOf(ImmutableTypeInfo.of(
                new GenericTypeInfo<>(StringBuilder.class)));
        TypeSerializer<StringBuilder> duplicate = stateful.duplicate();
        assertNotSame(stateful, duplicate);
        assertEquals(stateful, duplicate);
        if (!(stateful instanceof ImmutableTypeInfo.Serializer<StringBuilder> original
                && duplicate instanceof ImmutableTypeInfo.Serializer<StringBuilder> copy)) {
            throw new AssertionError("not ImmutableTypeInfo's serializers: " + stateful + ", " + duplicate);
        }
        assertNotSame(original.wrapped(), copy.wrapped(), "the wrapped serializer duplicated");
        assertTrue(duplicate.isImmutableType());
    }

    @Test
    void aSnapshotReadBackRestoresTheSerializerAndIsCompatibleAsIs() throws IOException {
        TypeSerializer<float[]> written = serializerOf(ImmutableTypeInfo.of(FLOATS));
        float[] value = {4f, 5f, 6f};
        byte[] data = bytesOf(written, value);

        TypeSerializerSnapshot<float[]> restored = readSnapshot(snapshotBytes(written));
        assertInstanceOf(ImmutableTypeInfo.Serializer.Snapshot.class, restored);
        TypeSerializer<float[]> reader = restored.restoreSerializer();
        assertEquals(written, reader);
        assertTrue(reader.isImmutableType());
        assertArrayEquals(value, reader.deserialize(new DataInputDeserializer(data)));

        TypeSerializer<float[]> current = serializerOf(ImmutableTypeInfo.of(FLOATS));
        TypeSerializerSchemaCompatibility<float[]> compatibility =
                current.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertTrue(compatibility.isCompatibleAsIs(), compatibility::toString);
    }

    @Test
    void aSnapshotChecksCompatibilityThroughTheWrappedSerializers() throws IOException {
        // Written for float[], restored where the type is now double[]: the wrapped snapshots decide, incompatible.
        TypeSerializerSnapshot<double[]> restored =
                readSnapshot(snapshotBytes(serializerOf(ImmutableTypeInfo.of(FLOATS))));
        TypeSerializerSnapshot<double[]> doubles =
                serializerOf(ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.DOUBLE_PRIMITIVE_ARRAY_TYPE_INFO))
                        .snapshotConfiguration();
        TypeSerializerSchemaCompatibility<double[]> compatibility = doubles.resolveSchemaCompatibility(restored);
        assertTrue(compatibility.isIncompatible(), compatibility::toString);
        // The same snapshot restored where the type is still float[] is compatible: the difference decided it.
        assertTrue(serializerOf(ImmutableTypeInfo.of(FLOATS)).snapshotConfiguration()
                .resolveSchemaCompatibility(readSnapshot(snapshotBytes(serializerOf(ImmutableTypeInfo.of(FLOATS)))))
                .isCompatibleAsIs());
    }

    @Test
    void stateWrittenBeforeTheTypeWasWrappedRestores() throws IOException {
        // A job whose float[] stream is declared immutable after a savepoint: the bytes are the same, the wrapped
        // snapshot decides.
        TypeSerializerSnapshot<float[]> plain = readSnapshot(snapshotBytes(serializerOf(FLOATS)));
        TypeSerializerSchemaCompatibility<float[]> compatibility = serializerOf(ImmutableTypeInfo.of(FLOATS))
                .snapshotConfiguration().resolveSchemaCompatibility(plain);
        assertTrue(compatibility.isCompatibleAsIs(), compatibility::toString);

        TypeSerializerSnapshot<double[]> plainFloats = readSnapshot(snapshotBytes(serializerOf(FLOATS)));
        assertTrue(serializerOf(ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.DOUBLE_PRIMITIVE_ARRAY_TYPE_INFO))
                .snapshotConfiguration().resolveSchemaCompatibility(plainFloats).isIncompatible(),
                "float[] state is no double[] state, wrapped or not");
    }

    /**
     * The snapshot of {@code Immutable(float[])} and a value {@code [1, 2.5]} written by the serializer as this class
     * was first committed (printed by {@link #printSnapshotAndValueBytes}), as a checkpoint of another JVM holds them:
     * they must still restore and read.
     */
    static final String SNAPSHOT_OF_FIRST_VERSION = "ADZkZXYuc2x1aWNlLmZsaW5rLkltbXV0YWJsZVR5cGVJbmZvJFNlcmlhbGl6ZXIkU25hcHNob3QAAAADAA3nBAAAAAEAFFf9"
            + "AAAAAQAAAAEAdG9yZy5hcGFjaGUuZmxpbmsuYXBpLmNvbW1vbi50eXBldXRpbHMuYmFzZS5hcnJheS5GbG9hdFByaW1pdGl2"
            + "ZUFycmF5U2VyaWFsaXplciRGbG9hdFByaW1pdGl2ZUFycmF5U2VyaWFsaXplclNuYXBzaG90AAAAAw==";
    static final String VALUE_OF_FIRST_VERSION = "AAAAAj+AAABAIAAA";

    @Test
    void aSnapshotWrittenByAnotherJvmRestores() throws IOException {
        TypeSerializerSnapshot<float[]> restored = readSnapshot(Base64.getDecoder().decode(SNAPSHOT_OF_FIRST_VERSION));
        TypeSerializer<float[]> current = serializerOf(ImmutableTypeInfo.of(FLOATS));
        assertTrue(current.snapshotConfiguration().resolveSchemaCompatibility(restored).isCompatibleAsIs());
        assertArrayEquals(new float[] {1f, 2.5f}, restored.restoreSerializer()
                .deserialize(new DataInputDeserializer(Base64.getDecoder().decode(VALUE_OF_FIRST_VERSION))));
    }

    /** Prints what {@link #SNAPSHOT_OF_FIRST_VERSION} and {@link #VALUE_OF_FIRST_VERSION} hold. */
    static void printSnapshotAndValueBytes() throws IOException {
        TypeSerializer<float[]> s = serializerOf(ImmutableTypeInfo.of(FLOATS));
        System.out.println(Base64.getEncoder().encodeToString(snapshotBytes(s)));
        System.out.println(Base64.getEncoder().encodeToString(bytesOf(s, new float[] {1f, 2.5f})));
    }

    @Test
    void ofNullNamesTheArgument() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> ImmutableTypeInfo.of((TypeInformation<float[]>) null));
        assertTrue(e.getMessage().startsWith("type: must not be null"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> ImmutableTypeInfo.of((Class<float[]>) null));
        assertTrue(e.getMessage().startsWith("typeClass: must not be null"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> ImmutableTypeInfo.of((TypeHint<float[]>) null));
        assertTrue(e.getMessage().startsWith("typeHint: must not be null"), e.getMessage());
    }

    @Test
    void ofAClassOrTypeHintIsImmutableToo() {
        // TypeInformation's own static of(Class) and of(TypeHint) would be reachable through this class and give a
        // plain type: ImmutableTypeInfo hides them.
        assertEquals(ImmutableTypeInfo.of(FLOATS), ImmutableTypeInfo.of(float[].class));
        assertEquals(ImmutableTypeInfo.of(Types.TUPLE(Types.STRING, FLOATS)),
                ImmutableTypeInfo.of(new TypeHint<Tuple2<String, float[]>>() {}));
        assertTrue(serializerOf(ImmutableTypeInfo.of(float[].class)).isImmutableType());
    }

    @Test
    void ofAnImmutableTypeIsThatType() {
        ImmutableTypeInfo<float[]> once = ImmutableTypeInfo.of(FLOATS);
        assertSame(once, ImmutableTypeInfo.of(once));
        assertSame(FLOATS, once.wrapped());
    }

    @Test
    void equalWhereTheWrappedTypesAreEqual() {
        ImmutableTypeInfo<float[]> a = ImmutableTypeInfo.of(FLOATS);
        ImmutableTypeInfo<float[]> b = ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO);
        assertNotSame(a, b);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, FLOATS);
        assertNotEquals(FLOATS, a);
        assertNotEquals(a, ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.DOUBLE_PRIMITIVE_ARRAY_TYPE_INFO));
        assertTrue(a.canEqual(b));
        assertFalse(a.canEqual(FLOATS));

        assertEquals(serializerOf(a), serializerOf(b));
        assertEquals(serializerOf(a).hashCode(), serializerOf(b).hashCode());
        assertNotEquals(serializerOf(a), serializerOf(FLOATS));
    }

    @Test
    void everythingElseIsTheWrappedTypes() {
        ImmutableTypeInfo<float[]> floats = ImmutableTypeInfo.of(FLOATS);
        assertEquals("Immutable(float[])", floats.toString());
        assertEquals(float[].class, floats.getTypeClass());
        assertEquals(FLOATS.isBasicType(), floats.isBasicType());
        assertEquals(FLOATS.isTupleType(), floats.isTupleType());
        assertEquals(FLOATS.getArity(), floats.getArity());
        assertEquals(FLOATS.getTotalFields(), floats.getTotalFields());
        assertEquals(FLOATS.isKeyType(), floats.isKeyType());
        assertEquals(FLOATS.isSortKeyType(), floats.isSortKeyType());

        TypeInformation<Tuple2<Integer, String>> pairs = Types.TUPLE(Types.INT, Types.STRING);
        ImmutableTypeInfo<Tuple2<Integer, String>> immutablePairs = ImmutableTypeInfo.of(pairs);
        assertTrue(immutablePairs.isTupleType());
        assertEquals(2, immutablePairs.getArity());
        assertEquals(2, immutablePairs.getTotalFields());
        assertEquals(pairs.getGenericParameters(), immutablePairs.getGenericParameters());
        assertTrue(ImmutableTypeInfo.of(BasicTypeInfo.STRING_TYPE_INFO).isBasicType());
    }
}
