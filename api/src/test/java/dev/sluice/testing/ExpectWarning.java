package dev.sluice.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A warning the test provokes on purpose (a deliberate fault, a leak, a listener that throws), which Sluice reports
 * through {@link System.Logger}: the test fails unless a record of {@link #logger()} (or a logger below it) at
 * {@code WARNING} or above whose message contains {@link #containing()} was logged while it ran. Such records are kept
 * off the console, so that a passing build prints no warning it expects; every other record still reaches the console's
 * handlers as before. On a class, every test of the class must log it.
 *
 * <p>Captures what goes to {@code java.util.logging}, where {@code System.Logger} logs unless the class path brings
 * another {@code System.LoggerFinder}. Records logged after the test has ended (by a thread it left running) are not
 * captured and print as usual.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@Repeatable(ExpectWarning.List.class)
@ExtendWith(ExpectedWarnings.class)
public @interface ExpectWarning {

    /** The logger's name, or that of a logger above it (for example {@code dev.sluice.leaks}). */
    String logger();

    /** Text the record's message contains (a literal, not a pattern). */
    String containing();

    /** Several expected warnings on one test. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    @ExtendWith(ExpectedWarnings.class)
    @interface List {
        /** The expected warnings. */
        ExpectWarning[] value();
    }
}
