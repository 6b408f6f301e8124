package dev.sluice.flink.dist;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;

/** A Log4j appender on the {@code dev.sluice} logger that keeps what reaches it: the end of Flink's logging path. */
final class LogRecorder extends AbstractAppender implements AutoCloseable {

    final List<LogEvent> events = new CopyOnWriteArrayList<>();

    private LogRecorder() {
        super("sluice-recorder", null, null, true, Property.EMPTY_ARRAY);
    }

    /** A recorder added to the {@code dev.sluice} logger of the test's Log4j configuration (log4j2-test.properties). */
    static LogRecorder install() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        LogRecorder r = new LogRecorder();
        r.start();
        config.getLoggerConfig("dev.sluice").addAppender(r, null, null);
        context.updateLoggers();
        return r;
    }

    @Override
    public void append(LogEvent event) {
        events.add(event.toImmutable()); // Log4j reuses its mutable events once the call returns
    }

    /** The messages of the records of logger {@code name} that contain {@code text}. */
    List<String> messages(String name, String text) {
        return events.stream().filter(e -> e.getLoggerName().equals(name))
                .map(e -> e.getLevel() + " " + e.getMessage().getFormattedMessage())
                .filter(m -> m.contains(text)).toList();
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().getLoggerConfig("dev.sluice").removeAppender(getName());
        context.updateLoggers();
        stop();
    }
}
