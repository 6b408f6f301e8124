package dev.sluice;

import static dev.sluice.testing.Attacks.assertRefused;

import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The synchronous facade's reads into a new array refuse, at the call and naming {@code source}, a null buffer and a
 * buffer of more elements than a Java array holds (an H200 holds an I32 buffer of 2^31 elements easily). The device
 * here is fake, so such a buffer costs no memory.
 */
class SyncArrayLengthTest {

    private DeviceContext ctx;

    @BeforeEach
    void open() {
        ctx = FakeDevices.open(Api.CUDA, n -> (StreamHandle) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {StreamHandle.class}, (proxy, method, a) -> switch (method.getName()) {
                    case "allocate" -> FakeDevices.memory((Long) a[0]);
                    case "recordMarker" -> Marker.DONE;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == a[0];
                    default -> null;
                }));
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    @Test
    void aNullBufferIsRefused() {
        assertRefused("source", () -> ctx.sync().toFloatArray(null), "null");
        assertRefused("source", () -> ctx.sync().toDoubleArray(null), "null");
        assertRefused("source", () -> ctx.sync().toIntArray(null), "null");
        assertRefused("source", () -> ctx.sync().toLongArray(null), "null");
    }

    @Test
    void aBufferLongerThanAnArrayIsRefused() {
        long n = 1L << 31;
        DeviceBuffer i = ctx.allocate(DType.I32, n);
        DeviceBuffer l = ctx.allocate(DType.I64, n);
        assertRefused("source", () -> ctx.sync().toIntArray(i), "2147483648 elements", "2147483639");
        assertRefused("source", () -> ctx.sync().toFloatArray(i.reinterpret(DType.F32)), "2147483648 elements");
        assertRefused("source", () -> ctx.sync().toLongArray(l), "2147483648 elements");
        assertRefused("source", () -> ctx.sync().toDoubleArray(l.reinterpret(DType.F64)), "2147483648 elements");
    }
}
