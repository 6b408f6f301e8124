package dev.sluice.flink;

import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeInformationTestBase;

/** Flink's own checks of a type information (flink-core's test base): equals, hashCode, serialization, fields. */
class TypeInfoContractTest extends TypeInformationTestBase<TypeInformation<?>> {

    @Override
    protected TypeInformation<?>[] getTestData() {
        return new TypeInformation<?>[] {
            ArrowBatch.TYPE,
            ImmutableTypeInfo.of(PrimitiveArrayTypeInfo.FLOAT_PRIMITIVE_ARRAY_TYPE_INFO),
            ImmutableTypeInfo.of(BasicTypeInfo.STRING_TYPE_INFO),
            ImmutableTypeInfo.of(ArrowBatch.TYPE),
        };
    }
}
