package dev.sluice.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Registers {@link SluiceExtension} on a test class: each test method may take a {@link dev.sluice.DeviceContext}
 * parameter, or find one in a field marked {@link TestContext}, and fails if it leaves a stream or buffer of that
 * context open or the context faults.
 *
 * <pre>{@code
 * @SluiceTest
 * class ScaleTest {
 *     @Test
 *     void scalesEveryElement(DeviceContext ctx) {
 *         try (DeviceBuffer b = ctx.allocate(DType.F32, 1024)) {
 *             ...
 *         }
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SluiceExtension.class)
public @interface SluiceTest {
}
