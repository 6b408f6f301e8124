package dev.sluice.flink.logging;

import java.text.MessageFormat;
import java.util.MissingResourceException;
import java.util.ResourceBundle;
import java.util.function.Supplier;

/**
 * The {@link System.LoggerFinder} of a TaskManager that has sluice-flink-dist in Flink's {@code lib/}: every
 * {@link System.Logger} of the process (Sluice's {@code dev.sluice.*} among them) logs through SLF4J, which Flink binds to
 * Log4j, so that the records follow Flink's {@code log4j.properties} into the TaskManager's log files. Without it the
 * JDK sends them to {@code java.util.logging}, which prints to the TaskManager's standard error, outside Log4j's files and
 * levels.
 *
 * <p>The JDK finds it once per process, through {@link java.util.ServiceLoader} on the system class loader: it works from
 * {@code lib/}, not from a job's jar. It calls only the SLF4J 1.7 API, which Flink ships and SLF4J 2 keeps. Where SLF4J is
 * not on the class path (the jar used outside Flink) it hands the records to {@code java.util.logging}, as the JDK would.
 * A {@code System.Logger} level maps to the SLF4J level of the same name ({@code WARNING} to warn, {@code ALL} to trace);
 * a message with parameters is formatted by {@link MessageFormat}, as the JDK's own loggers do.
 */
public final class Slf4jLoggerFinder extends System.LoggerFinder {

    /** Whether SLF4J's API is reachable from this class's loader; checked once. */
    private static final boolean SLF4J = slf4jPresent();

    /** Made by the JDK's {@link java.util.ServiceLoader}; holds nothing. */
    public Slf4jLoggerFinder() {
    }

    private static boolean slf4jPresent() {
        try {
            Class.forName("org.slf4j.LoggerFactory", false, Slf4jLoggerFinder.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /**
     * The logger named {@code name}, for any module: SLF4J's logger of that name.
     *
     * @param name   the logger's name ({@code dev.sluice.DeviceContext})
     * @param module the module that asks (every module gets the same bridge)
     * @return a logger that passes each record to SLF4J, or to {@code java.util.logging} where SLF4J is absent
     */
    @Override
    public System.Logger getLogger(String name, Module module) {
        return SLF4J ? new ToSlf4j(name) : new ToJul(name);
    }

    /** Formats a record's message as the JDK does: localized by {@code bundle}, then {@link MessageFormat} if params. */
    static String format(ResourceBundle bundle, String message, Object... params) {
        String text = message;
        if (bundle != null && message != null) {
            try {
                text = bundle.getString(message);
            } catch (MissingResourceException notAKey) {
                text = message;
            }
        }
        if (params == null || params.length == 0 || text == null) {
            return text;
        }
        return new MessageFormat(text).format(params);
    }

    /** A logger that passes records to the SLF4J logger of its name. */
    private static final class ToSlf4j implements System.Logger {
        private final org.slf4j.Logger logger;

        ToSlf4j(String name) {
            this.logger = org.slf4j.LoggerFactory.getLogger(name);
        }

        @Override
        public String getName() {
            return logger.getName();
        }

        @Override
        public boolean isLoggable(Level level) {
            return switch (level) {
                case ALL, TRACE -> logger.isTraceEnabled();
                case DEBUG -> logger.isDebugEnabled();
                case INFO -> logger.isInfoEnabled();
                case WARNING -> logger.isWarnEnabled();
                case ERROR -> logger.isErrorEnabled();
                case OFF -> false;
            };
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
            if (isLoggable(level)) {
                emit(level, format(bundle, message), thrown);
            }
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            if (isLoggable(level)) {
                emit(level, format(bundle, format, params), null);
            }
        }

        @Override
        public void log(Level level, Supplier<String> message) {
            if (isLoggable(level)) { // the supplier runs only for a record that is written
                emit(level, message.get(), null);
            }
        }

        @Override
        public void log(Level level, Supplier<String> message, Throwable thrown) {
            if (isLoggable(level)) {
                emit(level, message.get(), thrown);
            }
        }

        private void emit(Level level, String message, Throwable thrown) {
            switch (level) {
                case ALL, TRACE -> logger.trace(message, thrown);
                case DEBUG -> logger.debug(message, thrown);
                case INFO -> logger.info(message, thrown);
                case WARNING -> logger.warn(message, thrown);
                case ERROR -> logger.error(message, thrown);
                case OFF -> { }
            }
        }
    }

    /** Where SLF4J is absent: the {@code java.util.logging} logger of the name, as the JDK's default finder uses. */
    private static final class ToJul implements System.Logger {
        private final java.util.logging.Logger logger;

        ToJul(String name) {
            this.logger = java.util.logging.Logger.getLogger(name);
        }

        @Override
        public String getName() {
            return logger.getName();
        }

        @Override
        public boolean isLoggable(Level level) {
            return logger.isLoggable(jul(level));
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
            if (isLoggable(level)) {
                logger.log(jul(level), format(bundle, message), thrown);
            }
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            if (isLoggable(level)) {
                logger.log(jul(level), format(bundle, format, params));
            }
        }

        private static java.util.logging.Level jul(Level level) {
            return switch (level) {
                case ALL -> java.util.logging.Level.ALL;
                case TRACE -> java.util.logging.Level.FINER;
                case DEBUG -> java.util.logging.Level.FINE;
                case INFO -> java.util.logging.Level.INFO;
                case WARNING -> java.util.logging.Level.WARNING;
                case ERROR -> java.util.logging.Level.SEVERE;
                case OFF -> java.util.logging.Level.OFF;
            };
        }
    }
}
