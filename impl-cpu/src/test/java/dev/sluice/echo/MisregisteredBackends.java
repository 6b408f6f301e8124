package dev.sluice.echo;

import static dev.sluice.testing.ExpectedWarnings.warning;

import dev.sluice.DeviceContext;
import dev.sluice.testing.ExpectedWarnings;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * This module's class path registers two backends that Sluice must leave out with a warning ({@link EchoBackend.EchoAgain},
 * {@link EchoBackend.BadName}). Backends are found once per JVM, by whichever test comes first: this extension, which
 * JUnit runs before every test class of the module (see {@code junit-platform.properties}), makes that first lookup
 * under an {@link ExpectedWarnings#expect} that asserts both warnings.
 */
public final class MisregisteredBackends implements BeforeAllCallback {

    private static final AtomicBoolean LOOKED_UP = new AtomicBoolean();

    /** Creates the extension; JUnit does, through {@code META-INF/services}. */
    public MisregisteredBackends() {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (LOOKED_UP.compareAndSet(false, true)) {
            ExpectedWarnings.expect(List.of(
                    warning("dev.sluice.Backends", EchoBackend.EchoAgain.class.getName() + " skipped: the name 'echo' is taken"),
                    warning("dev.sluice.Backends", EchoBackend.BadName.class.getName() + " skipped: its name 'Not A Name'")),
                    DeviceContext::detect);
        }
    }
}
