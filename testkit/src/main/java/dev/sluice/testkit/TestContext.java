package dev.sluice.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an instance field of type {@link dev.sluice.DeviceContext} that {@link SluiceExtension} sets before each test
 * (before the test's {@code @BeforeEach} methods run) to that test's context. The field must not be static or final.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TestContext {
}
