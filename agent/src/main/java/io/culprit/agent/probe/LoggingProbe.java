package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Logback events that reached the appenders: {@code Logger.callAppenders(event)} runs once per
 * event that passed the level checks, on the logging thread, and its duration is the time spent
 * in appenders (formatting, stack-trace rendering, I/O or the async queue's hand-off).
 */
final class LoggingProbe {

    static final String LOGBACK_LOGGER = "ch.qos.logback.classic.Logger";

    /** Per level and logger. */
    static final class Events {
        final String level;
        final String logger;
        final LongAdder events = new LongAdder();
        final LongAdder withStackTrace = new LongAdder();
        final LongAdder appenderNs = new LongAdder();

        Events(String level, String logger) {
            this.level = level;
            this.logger = logger;
        }
    }

    /** Level → logger → events: found without concatenating a key per event. */
    final ConcurrentHashMap<String, ConcurrentHashMap<String, Events>> events = new ConcurrentHashMap<>();

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new Hook(LOGBACK_LOGGER, "callAppenders", "(Lch/qos/logback/classic/spi/ILoggingEvent;)") {
            @Override
            public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
                long ns = System.nanoTime() - start;
                Object event = args[0];
                String level = String.valueOf(Reflect.call(event, "getLevel"));
                String logger = String.valueOf(Reflect.call(event, "getLoggerName"));
                Events e = events(level, logger);
                e.events.increment();
                e.appenderNs.add(ns);
                if (Reflect.call(event, "getThrowableProxy") != null) e.withStackTrace.increment();
            }
        });
        return h;
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
            rows.add(r);
        }
        rows.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("events")).reversed());
        return rows;
    }
}
