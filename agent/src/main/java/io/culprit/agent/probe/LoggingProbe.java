package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Log events that reached the appenders, and the time spent in them (formatting, stack-trace
 * rendering, I/O or the async queue's hand-off), on the logging thread. Logback: {@code
 * Logger.callAppenders(event)} runs once per event that passed the level checks and walks the
 * logger hierarchy itself. log4j2: {@code LoggerConfig.log(event, predicate)} runs per event
 * and again, nested, for each additive parent config, so only the outermost call on a thread is
 * recorded; the replay of an event on an async logger config's thread (predicate
 * ASYNCHRONOUS_ONLY) was already counted where it was logged.
 */
final class LoggingProbe {

    static final String LOGBACK_LOGGER = "ch.qos.logback.classic.Logger";
    static final String LOG4J_LOGGER_CONFIG = "org.apache.logging.log4j.core.config.LoggerConfig";
    /** Per thread: how deep in log4j2 LoggerConfig.log calls it is (JDK type only, see {@link Prepared}). */
    private final ThreadLocal<int[]> log4jDepth = ThreadLocal.withInitial(() -> new int[1]);

    /** Per level and logger. */
    static final class Events {
        final String level;
        final String logger;
        final LongAdder events = new LongAdder();
        final LongAdder withStackTrace = new LongAdder();
        final LongAdder appenderNs = new LongAdder();
        /**
         * The first event's message pattern (before its arguments are filled in), cut at {@link #MESSAGE_MAX}: what a
         * library warns about once per call (Hibernate's HHH90003004, paging in memory) is in it. Read once per row.
         */
        volatile String message;

        Events(String level, String logger) {
            this.level = level;
            this.logger = logger;
        }
    }

    /** Level → logger → events: found without concatenating a key per event. */
    final ConcurrentHashMap<String, ConcurrentHashMap<String, Events>> events = new ConcurrentHashMap<>();

    /**
     * Whether either framework's hook is woven: a service on log4j2 alone has no logback logger, and
     * its table was left out of the case (a log4j2 service whose console blocked read "no logging probe").
     */
    boolean woven(Probes p) {
        return p.woven(LOGBACK_LOGGER) || p.woven(LOG4J_LOGGER_CONFIG);
    }

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new Hook(LOGBACK_LOGGER, "callAppenders", "(Lch/qos/logback/classic/spi/ILoggingEvent;)", Hook.TIMED | Hook.ARG0) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                record(arg0, System.nanoTime() - start, "getThrowableProxy", false);
            }
        });
        h.add(new Hook(LOG4J_LOGGER_CONFIG, "log", "(Lorg/apache/logging/log4j/core/LogEvent;L",
                Hook.TIMED | Hook.ARG0 | Hook.ARG1) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                log4jDepth.get()[0]++;
                return System.nanoTime();
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long ns = System.nanoTime() - start;
                int[] depth = log4jDepth.get();
                if (depth[0] > 0) depth[0]--;  // never below 0: an exit whose entry ran in the previous probes' hook (renew)
                if (depth[0] > 0 || "ASYNCHRONOUS_ONLY".equals(String.valueOf(arg1))) return;
                record(arg0, ns, "getThrown", true);
            }
        });
        return h;
    }

    static final int MESSAGE_MAX = 200;

    /**
     * One event that reached the appenders; {@code thrownGetter} names the event's stack-trace accessor, and
     * {@code log4j} says the message is a log4j2 Message (its pattern through getFormat) rather than logback's String.
     */
    private void record(Object event, long appenderNs, String thrownGetter, boolean log4j) {
        String level = String.valueOf(Reflect.call(event, "getLevel"));
        String logger = String.valueOf(Reflect.call(event, "getLoggerName"));
        Events e = events(level, logger);
        if (e.message == null) {
            Object m = Reflect.call(event, "getMessage");
            if (log4j) m = Reflect.call(m, "getFormat");
            String text = String.valueOf(m);
            e.message = text.length() > MESSAGE_MAX ? text.substring(0, MESSAGE_MAX) : text;
        }
        e.events.increment();
        e.appenderNs.add(appenderNs);
        if (Reflect.call(event, thrownGetter) != null) e.withStackTrace.increment();
    }

    private Events events(String level, String logger) {
        ConcurrentHashMap<String, Events> ofLevel = events.get(level);
        if (ofLevel == null) ofLevel = events.computeIfAbsent(level, k -> new ConcurrentHashMap<>());
        Events e = ofLevel.get(logger);
        return e != null ? e : ofLevel.computeIfAbsent(logger, k -> new Events(level, k));
    }

    /** Rows of table {@code logging}: per level and logger, most events first. */
    List<Map<String, Object>> rows(double seconds) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map<String, Events> ofLevel : events.values()) for (Events e : ofLevel.values()) {
            Map<String, Object> r = new LinkedHashMap<>();
            long n = e.events.sum();
            r.put("level", e.level);
            r.put("logger", e.logger);
            r.put("events", n);
            r.put("perSecond", n / seconds);
            r.put("withStackTrace", e.withStackTrace.sum());
            r.put("appenderMs", e.appenderNs.sum() / 1e6);
            if (e.message != null) r.put("message", e.message);
            rows.add(r);
        }
        rows.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("events")).reversed());
        return rows;
    }
}
