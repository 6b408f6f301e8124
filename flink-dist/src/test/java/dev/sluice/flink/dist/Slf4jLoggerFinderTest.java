package dev.sluice.flink.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.flink.logging.Slf4jLoggerFinder;
import java.util.List;
import org.apache.logging.log4j.core.LogEvent;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar's {@link System.LoggerFinder}: the JDK finds it on the class path, and a {@link System.Logger} record
 * reaches SLF4J and, behind it, Log4j, with its level, parameters and exception.
 */
class Slf4jLoggerFinderTest {

    @Test
    void theJdkFindsTheBridgeInTheJar() {
        assertInstanceOf(Slf4jLoggerFinder.class, System.LoggerFinder.getLoggerFinder());
        String jar = Slf4jLoggerFinder.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertTrue(jar.matches(".*/sluice-flink-dist-[^/]*\\.jar"), "from the shaded jar: " + jar);
    }

    @Test
    void aSystemLoggerRecordReachesLog4jThroughSlf4j() {
        try (LogRecorder recorder = LogRecorder.install()) {
            System.Logger log = System.getLogger("dev.sluice.test");
            log.log(System.Logger.Level.INFO, "device {0} opened", "cuda:0");
            IllegalStateException failure = new IllegalStateException("boom");
            log.log(System.Logger.Level.WARNING, "listener failed", failure);
            log.log(System.Logger.Level.DEBUG, "below the configured INFO");
            assertFalse(log.isLoggable(System.Logger.Level.DEBUG), "dev.sluice is at INFO in log4j2-test.properties");
            assertTrue(log.isLoggable(System.Logger.Level.ERROR));

            assertEquals(List.of("INFO device cuda:0 opened"), recorder.messages("dev.sluice.test", "opened"));
            LogEvent warning = recorder.events.stream().filter(e -> e.getMessage().getFormattedMessage()
                    .equals("listener failed")).findFirst().orElseThrow();
            assertEquals("WARN", warning.getLevel().name());
            assertEquals("boom", warning.getThrown().getMessage(), "the exception goes along");
            assertTrue(recorder.messages("dev.sluice.test", "below").isEmpty(), "DEBUG is filtered");
        }
    }
}
