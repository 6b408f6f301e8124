package dev.sluice.testkit;

import dev.sluice.BackendUnavailableException;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceListener;
import dev.sluice.SluiceProperties;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * A JUnit 5 extension that gives each test its own {@link DeviceContext} and checks, when the test ends, that the test
 * closed what it opened through it and that the context did not fault. Register it with {@link SluiceTest} (or
 * {@code @ExtendWith(SluiceExtension.class)}); the test takes the context as a parameter of type
 * {@code DeviceContext} (of the test method, or of a {@code @BeforeEach} or {@code @AfterEach} method: the same
 * context), or from an instance field marked {@link TestContext}.
 *
 * <p><b>Backend:</b> device 0 of the backend that the system property {@value #API_PROPERTY} names ({@code cpu},
 * {@code cuda}, {@code hip}, or another backend's name), or of the CPU simulator ({@value #DEFAULT_API}) when it is
 * unset or blank, so tests run on any machine and the same tests run on a GPU with {@code -Dsluice.api=cuda}. Where
 * the backend named is unavailable (no library, no device), each test is skipped with the backend's reason, not
 * failed.
 *
 * <p><b>When the test ends</b> (after its {@code @AfterEach} methods), the test fails if
 * <ul>
 * <li>the context faulted ({@link DeviceContext#isFaulted()}): the failure carries the fault;
 * <li>or a stream other than the default one, a device buffer or a host buffer of the context is still open
 * ({@link DeviceContext#openResources()}): the failure lists them.
 * </ul>
 * Either way the extension then closes the context, which releases whatever was left, so one test's leak does not
 * reach the next. A test that closes the context itself is not checked. A handle dropped without {@code close()} and
 * collected during the test is released by Sluice's leak detector instead, which logs it ({@code LEAK:}, logger
 * {@code dev.sluice.leaks}); one still reachable, or not yet collected, fails the test here. Events and compiled
 * functions are not checked: a context may keep functions for its life.
 *
 * <p>Each test gets a context of its own, opened before the test instance's {@code @BeforeEach} methods and closed
 * after its {@code @AfterEach} methods; tests that run concurrently get different contexts.
 */
public final class SluiceExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

    /** The system property that names the backend: {@value}. */
    public static final String API_PROPERTY = SluiceProperties.API;

    /** The backend used where {@link #API_PROPERTY} is unset or blank: the CPU simulator, {@value}. */
    public static final String DEFAULT_API = "cpu";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SluiceExtension.class);

    /** Creates the extension; JUnit does, through {@link SluiceTest} or {@code @ExtendWith}. */
    public SluiceExtension() {
    }

    /** The backend's name the tests' contexts open: {@value #API_PROPERTY}, or {@value #DEFAULT_API}. */
    static String selectedApi() {
        String named = System.getProperty(API_PROPERTY);
        return named == null || named.isBlank() ? DEFAULT_API : named.strip();
    }

    /**
     * Opens the test's context and sets the instance fields marked {@link TestContext}.
     *
     * @throws TestAbortedException           where the selected backend is unavailable (the test is skipped)
     * @throws ExtensionConfigurationException for a marked field that is static, final or not a {@code DeviceContext}
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        String api = selectedApi();
        DeviceContext device;
        try {
            if (DeviceContext.deviceCount(api) == 0) { // a backend present without devices: skipped, as an absent one
                throw new TestAbortedException("no device of backend " + api + " (" + API_PROPERTY + ") here; "
                        + DeviceContext.detect().strip().replace('\n', ' '));
            }
            device = DeviceContext.open(api, 0);
        } catch (BackendUnavailableException e) {
            throw new TestAbortedException("backend " + api + " (" + API_PROPERTY + ") is unavailable here: "
                    + e.getMessage(), e);
        }
        Watched watched = new Watched(device);
        context.getStore(NAMESPACE).put(Watched.class, watched);
        for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
            inject(instance, device);
        }
    }

    private static void inject(Object instance, DeviceContext device) {
        for (Class<?> c = instance.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!f.isAnnotationPresent(TestContext.class)) {
                    continue;
                }
                if (f.getType() != DeviceContext.class || Modifier.isStatic(f.getModifiers())
                        || Modifier.isFinal(f.getModifiers())) {
                    throw new ExtensionConfigurationException("@TestContext field " + c.getName() + "." + f.getName()
                            + " must be an instance field of type DeviceContext, neither static nor final; it is "
                            + Modifier.toString(f.getModifiers()) + " " + f.getType().getName());
                }
                try {
                    f.setAccessible(true);
                    f.set(instance, device);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new ExtensionConfigurationException("cannot set @TestContext field " + c.getName() + "."
                            + f.getName() + ": " + e, e);
                }
            }
        }
    }

    /**
     * Checks the test's context, then closes it.
     *
     * @throws AssertionFailedError if the context faulted or the test left a stream or buffer open
     */
    @Override
    public void afterEach(ExtensionContext context) {
        Watched watched = context.getStore(NAMESPACE).remove(Watched.class, Watched.class);
        if (watched != null) {
            watched.finish(context.getDisplayName());
        }
    }

    /** A {@code DeviceContext} parameter of a method (the test's, or a {@code @BeforeEach} or {@code @AfterEach}). */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == DeviceContext.class && parameter.getDeclaringExecutable() instanceof Method;
    }

    /**
     * The test's context.
     *
     * @throws ParameterResolutionException outside a test's life (a {@code @BeforeAll} or {@code @AfterAll} method)
     */
    @Override
    public DeviceContext resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Watched watched = context.getStore(NAMESPACE).get(Watched.class, Watched.class);
        if (watched == null) {
            throw new ParameterResolutionException("SluiceExtension gives a DeviceContext to test methods and their"
                    + " @BeforeEach and @AfterEach methods only, not to " + parameter.getDeclaringExecutable());
        }
        return watched.device;
    }

    /** One test's context and what its listener saw. */
    private static final class Watched implements DeviceListener {
        final DeviceContext device;
        final DeviceListener.Registration registration;
        private volatile @Nullable Throwable fault;

        Watched(DeviceContext device) {
            this.device = device;
            this.registration = device.addListener(this);
        }

        @Override
        public void faulted(DeviceContext context, Throwable fault) {
            this.fault = fault;
        }

        /** Checks, closes the context whatever the check found, then fails if it found something. */
        void finish(String test) {
            List<String> open = List.of();
            boolean faulted;
            try {
                faulted = device.isFaulted();
                if (!faulted && !device.isClosed()) {
                    open = device.openResources();
                }
            } finally {
                registration.close();
                device.close();
            }
            List<String> problems = new ArrayList<>();
            if (faulted) {
                problems.add(device + " faulted: " + fault);
            }
            if (!open.isEmpty()) {
                problems.add(test + " left " + open.size() + " resource(s) of " + device + " open: "
                        + String.join(", ", open) + " (close each, with try-with-resources; the extension has closed"
                        + " the context, which released them)");
            }
            if (!problems.isEmpty()) {
                throw new AssertionFailedError(String.join("; ", problems), faulted ? fault : null);
            }
        }
    }
}
