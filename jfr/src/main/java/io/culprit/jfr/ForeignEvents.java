package io.culprit.jfr;

import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;

/**
 * Event types that culprit's settings do not name: those libraries define (JDBI's statement event)
 * and the application's own. JFR runs a type that a recording's settings leave out with its
 * annotations' defaults, which for such an event are enabled, with a stack trace and no threshold;
 * so a recording with culprit's settings also recorded every statement a JDBI service ran, with its
 * stack, and 6.3 % of that service's CPU went to JFR's stack walks for them (a blind Dropwizard
 * service, session 45). No rule reads them. Each of culprit's recordings switches off every
 * registered type its settings leave out when it starts ({@link #off}), and again for types
 * registered while it runs, a library's first use after the attach ({@link #recheck}).
 */
public final class ForeignEvents {
    /** Each running recording or stream of culprit's, with the event names its settings set. */
    private static final Map<Object, Set<String>> RUNNING = new IdentityHashMap<>();
    private static final long RECHECK_NS = 1_000_000_000L;
    private static long lastCheckNs;
    private static int typesSeen = -1;

    private ForeignEvents() { }

    /** {@code settings} with every registered event type they do not name switched off. */
    public static Map<String, String> off(Map<String, String> settings) {
        Map<String, String> out = new HashMap<>(settings);
        Set<String> named = names(settings);
        for (EventType t : types()) if (!named.contains(t.getName())) out.put(t.getName() + "#enabled", "false");
        return out;
    }

    /**
     * Keeps the types registered from now on off in {@code recording} (a {@code Recording} or a
     * {@code RecordingStream}) while it runs, which started with {@code settings}; until {@link #forget}.
     */
    public static void watch(Object recording, Map<String, String> settings) {
        synchronized (RUNNING) {
            RUNNING.put(recording, names(settings));
        }
    }

    public static void forget(Object recording) {
        synchronized (RUNNING) {
            RUNNING.remove(recording);
        }
    }

    /**
     * Switches off, in every watched recording, the types registered since it started. At most
     * once a second, and a count of the registered types when nothing new came: called from JFR's
     * own threads (the live stream's flush, the exception gate's tick).
     */
    public static void recheck() {
        synchronized (RUNNING) {
            long now = System.nanoTime();
            if (RUNNING.isEmpty() || now - lastCheckNs < RECHECK_NS && lastCheckNs != 0) return;
            lastCheckNs = now;
            recheckNow();
        }
    }

    /** {@link #recheck} without its pace. */
    static void recheckNow() {
        synchronized (RUNNING) {
            List<EventType> types = types();
            if (types.size() == typesSeen) return;
            typesSeen = types.size();
            for (Map.Entry<Object, Set<String>> e : RUNNING.entrySet()) {
                for (EventType t : types) {
                    if (e.getValue().add(t.getName())) disable(e.getKey(), t.getName());
                }
            }
        }
    }

    private static void disable(Object recording, String name) {
        try {
            // Recording and RecordingStream (JDK 14+, which this module, compiled for 11, reaches reflectively) both have it.
            recording.getClass().getMethod("disable", String.class).invoke(recording, name);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // a recording closed meanwhile: nothing to switch off
        }
    }

    private static Set<String> names(Map<String, String> settings) {
        Set<String> out = new HashSet<>();
        for (String k : settings.keySet()) {
            int hash = k.indexOf('#');
            out.add(hash < 0 ? k : k.substring(0, hash));
        }
        return out;
    }

    private static List<EventType> types() {
        return FlightRecorder.getFlightRecorder().getEventTypes();
    }
}
