package dev.sluice.flink;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's own checks of a serializer (flink-core's test base) on ImmutableTypeInfo's, over float arrays. */
class ImmutableTypeInfoSerializerTest extends SerializerTestBase<float[]> {

    @Override
    protected TypeSerializer<float[]> createSerializer() {
        return ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO)
                .createSerializer(new SerializerConfigImpl());
    }

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    protected Class<float[]> getTypeClass() {
        return float[].class;
    }

    @Override
    protected float[][] getTestData() {
        return new float[][] {{}, {1f}, {1f, -2.5f, Float.NaN, Float.MAX_VALUE}, new float[1000]};
    }
}
