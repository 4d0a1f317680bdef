package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Log calls whose level is off, with their message already built: {@code log.fine("x " + json(x))}
 * or {@code log.debug("x {}", json(x))} computes its argument before the logger looks at its level,
 * and then drops it. The cost is the argument's, under the caller's frames in the profile, and
 * no appender ever sees the event (so {@link LoggingProbe} does not either): counted here, per
 * logger, at the message-taking calls (JUL's {@code Logger.log(Level, String)}, which
 * {@code fine(String)} and its kin call; logback's and log4j2's {@code debug(String)} and {@code trace(String)},
 * JBoss Logging's {@code debug(Object)} and {@code trace(Object)}). JBoss LogManager's own JUL logger
 * (Quarkus' backend) overrides {@code fine(String)} and the rest without calling JUL's, so JUL calls in
 * a Quarkus service are not seen. The Supplier and fluent forms, which build nothing when the level is off, are not
 * counted. Loggers are usually named after their class, which is how diagnosis ties a logger's
 * drops to the method that built the message.
 *
 * <p>Only the forms that take a finished message are woven ({@code log(Level, String)},
 * {@code debug(String)}): libraries log through the parameterized forms, which format nothing
 * when the level is off, and some call them thousands of times a request (PostgreSQL's driver
 * logs every data row it reads at FINEST): hooking those cost a Helidon service 58 % of its
 * throughput. A library's logger that still lands here is looked up once and then skipped.
 */
final class DiscardedLogs {

    static final String JUL_LOGGER = "java.util.logging.Logger";
    static final String LOGBACK_LOGGER = LoggingProbe.LOGBACK_LOGGER;
    /** log4j2's API: every logger's {@code debug(String)} is its AbstractLogger's. */
    static final String LOG4J_LOGGER = "org.apache.logging.log4j.spi.AbstractLogger";
    /** JBoss Logging (Quarkus' {@code Log} and Hibernate's loggers): {@code debug(Object)} on any backend. */
    static final String JBOSS_LOGGER = "org.jboss.logging.Logger";
    static final List<String> COLUMNS = List.of("logger", "level", "calls", "perRequest");

    /** One logger's dropped calls: the level is the first one seen dropped (debug and trace are rarely both). */
    private static final class Dropped {
        final String logger;
        final String level;
        final LongAdder calls = new LongAdder();
        /** A library's or framework's logger: not the application's message, not counted. */
        final boolean library;

        Dropped(String logger, String level) {
            this.logger = logger;
            this.level = level;
            this.library = logger == null || CallSite.skipped(logger) || LruMaps.FRAMEWORKS.stream().anyMatch(logger::startsWith);
        }
    }

    /** By logger instance: loggers keep Object's identity, so a lookup hashes nothing of theirs. */
    private final ConcurrentHashMap<Object, Dropped> byLogger = new ConcurrentHashMap<>();
    private final Getter debugEnabled = new Getter("isDebugEnabled");
    private final Getter traceEnabled = new Getter("isTraceEnabled");
    private final Getter name = new Getter("getName");

    List<Hook> hooks() {
        return List.of(
                new Hook(JUL_LOGGER, "log", "(Ljava/util/logging/Level;Ljava/lang/String;)", Hook.ENTER | Hook.SELF | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object arg0) {
                        if (self instanceof Logger && arg0 instanceof Level && !((Logger) self).isLoggable((Level) arg0)) {
                            dropped(self, ((Logger) self).getName(), ((Level) arg0).getName());
                        }
                        return 0L;
                    }
                },
                byLevel(LOGBACK_LOGGER, "debug", "(Ljava/lang/String;)", debugEnabled, "DEBUG"),
                byLevel(LOGBACK_LOGGER, "trace", "(Ljava/lang/String;)", traceEnabled, "TRACE"),
                byLevel(LOG4J_LOGGER, "debug", "(Ljava/lang/String;)", debugEnabled, "DEBUG"),
                byLevel(LOG4J_LOGGER, "trace", "(Ljava/lang/String;)", traceEnabled, "TRACE"),
                byLevel(JBOSS_LOGGER, "debug", "(Ljava/lang/Object;)", debugEnabled, "DEBUG"),
                byLevel(JBOSS_LOGGER, "trace", "(Ljava/lang/Object;)", traceEnabled, "TRACE"));
    }

    /** A logger's {@code method}(message), dropped when its {@code enabled} getter says the level is off. */
    private Hook byLevel(String className, String method, String descriptor, Getter enabled, String level) {
        return new Hook(className, method, descriptor, Hook.ENTER | Hook.SELF) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                if (Boolean.FALSE.equals(enabled.call(self))) dropped(self, null, level);
                return 0L;
            }
        };
    }

    private void dropped(Object logger, String loggerName, String level) {
        Dropped d = byLogger.get(logger);
        if (d == null) {
            String n = loggerName != null ? loggerName : String.valueOf(name.call(logger));
            d = byLogger.computeIfAbsent(logger, k -> new Dropped(n, level));
        }
        if (!d.library) d.calls.increment();
    }

    boolean woven(Probes p) {
        return p.woven(JUL_LOGGER) || p.woven(LOGBACK_LOGGER) || p.woven(LOG4J_LOGGER) || p.woven(JBOSS_LOGGER);
    }

    /** Rows of table {@code discarded-logs}: per logger, most dropped calls first. */
    List<Map<String, Object>> rows(long requests) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Dropped d : byLogger.values()) {
            if (d.library) continue;
            long n = d.calls.sum();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("logger", d.logger);
            r.put("level", d.level);
            r.put("calls", n);
            r.put("perRequest", requests > 0 ? (double) n / requests : null);
            rows.add(r);
        }
        rows.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("calls")).reversed());
        return rows;
    }
}
