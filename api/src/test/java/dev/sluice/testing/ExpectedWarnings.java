package dev.sluice.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.AssertionFailedError;

/**
 * Runs the {@link ExpectWarning} checks, and {@link #expect} for code that provokes a warning outside a test method:
 * meanwhile the records of the {@code dev.sluice} loggers go through a handler that keeps those expected and passes
 * every other one on to the handlers it would have reached.
 */
public final class ExpectedWarnings implements BeforeEachCallback, AfterEachCallback {

    /** Every Sluice logger is below this one; held here, since {@code java.util.logging} holds loggers weakly. */
    private static final Logger SLUICE = Logger.getLogger("dev.sluice");

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ExpectedWarnings.class);

    /** Creates the extension; JUnit does, through {@link ExpectWarning}'s {@code @ExtendWith}. */
    public ExpectedWarnings() {
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        List<ExpectWarning> expected = new ArrayList<>();
        context.getTestMethod().ifPresent(m -> expected.addAll(
                AnnotationSupport.findRepeatableAnnotations(m, ExpectWarning.class)));
        // a nested class of the conformance suite inherits the promises of the abstract test it extends
        for (Class<?> outer = context.getRequiredTestClass(); outer != null; outer = outer.getEnclosingClass()) {
            for (Class<?> c = outer; c != null && c != Object.class; c = c.getSuperclass()) {
                expected.addAll(AnnotationSupport.findRepeatableAnnotations(c, ExpectWarning.class));
            }
        }
        context.getStore(NAMESPACE).put(Capture.class, Capture.install(expected));
    }

    /**
     * Runs {@code action}, keeping off the console the warnings it is expected to log, and fails unless it logged each.
     *
     * @param expected the warnings {@code action} must log; other records reach the console as usual
     * @param action   the code that provokes them
     * @throws AssertionFailedError if one of them was not logged
     */
    public static void expect(List<ExpectWarning> expected, Runnable action) {
        Capture capture = Capture.install(expected);
        try {
            action.run();
        } finally {
            capture.uninstall();
        }
        capture.assertLogged();
    }

    /**
     * An expected warning for {@link #expect}.
     *
     * @param logger     the logger's name, or that of a logger above it
     * @param containing text the message contains
     * @return the expectation
     */
    public static ExpectWarning warning(String logger, String containing) {
        return new ExpectWarning() {
            @Override
            public String logger() {
                return logger;
            }

            @Override
            public String containing() {
                return containing;
            }

            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return ExpectWarning.class;
            }
        };
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Capture capture = context.getStore(NAMESPACE).remove(Capture.class, Capture.class);
        if (capture == null) {
            return;
        }
        capture.uninstall();
        if (context.getExecutionException().isPresent()) {
            return; // a failed or aborted test reports that; a missing warning would only hide it
        }
        capture.assertLogged();
    }

    private static boolean matches(ExpectWarning e, LogRecord r) {
        String name = r.getLoggerName() == null ? "" : r.getLoggerName();
        String message = r.getMessage() == null ? "" : r.getMessage();
        return r.getLevel().intValue() >= Level.WARNING.intValue()
                && (name.equals(e.logger()) || name.startsWith(e.logger() + "."))
                && message.contains(e.containing());
    }

    /** Keeps the expected records; passes the others to the handlers above {@code dev.sluice}, as logging would. */
    private static final class Capture extends Handler {
        final List<ExpectWarning> expected;
        final boolean useParentHandlers;
        final List<LogRecord> kept = new CopyOnWriteArrayList<>();

        private Capture(List<ExpectWarning> expected, boolean useParentHandlers) {
            this.expected = List.copyOf(expected);
            this.useParentHandlers = useParentHandlers;
        }

        static Capture install(List<ExpectWarning> expected) {
            Capture capture = new Capture(expected, SLUICE.getUseParentHandlers());
            SLUICE.addHandler(capture);
            SLUICE.setUseParentHandlers(false);
            return capture;
        }

        void uninstall() {
            SLUICE.removeHandler(this);
            SLUICE.setUseParentHandlers(useParentHandlers);
        }

        void assertLogged() {
            for (ExpectWarning e : expected) {
                if (kept.stream().noneMatch(r -> matches(e, r))) {
                    throw new AssertionFailedError("expected a warning of logger " + e.logger() + " containing \""
                            + e.containing() + "\"; none was logged");
                }
            }
        }

        @Override
        public void publish(LogRecord r) {
            if (expected.stream().anyMatch(e -> matches(e, r))) {
                kept.add(r);
                return;
            }
            if (!useParentHandlers) {
                return;
            }
            for (Logger l = SLUICE.getParent(); l != null; l = l.getParent()) {
                for (Handler h : l.getHandlers()) {
                    h.publish(r);
                }
                if (!l.getUseParentHandlers()) {
                    break;
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
