package io.culprit.jfr;

import io.culprit.jfr.collect.CpuSample;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import jdk.jfr.Configuration;

/**
 * culprit's own JFR settings ({@code culprit.jfc} beside this class). Used by {@code jfr start}
 * and the live collectors so evidence never depends on the target JDK's defaults; the file
 * documents the cost of each choice.
 */
public final class CulpritSettings {
    public static final String RESOURCE = "culprit.jfc";

    private CulpritSettings() { }

    public static Configuration configuration() {
        try (InputStream in = CulpritSettings.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " missing from the culprit jfr jar");
            try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                return Configuration.create(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ParseException e) {
            throw new IllegalStateException("bad " + RESOURCE + ": " + e.getMessage(), e);
        }
    }

    /** Event settings as JFR expects them in {@code Recording.setSettings}. */
    public static Map<String, String> settings() {
        return configuration().getSettings();
    }

    /**
     * {@code settings} with lock parks taken from the agent's park tracer ({@link ParkEvent})
     * instead of JFR's {@code jdk.ThreadPark}: the same parks, without the idle waits for work
     * that JFR records too. Only for a JVM where the tracer is woven.
     */
    public static Map<String, String> withTracedParks(Map<String, String> settings) {
        Map<String, String> out = new HashMap<>(settings);
        out.put("jdk.ThreadPark#enabled", "false");
        out.put(ParkEvent.NAME + "#enabled", "true");
        out.put(ParkEvent.NAME + "#stackTrace", "true");
        // Committed once the wait is over, with no JFR duration: the tracer applies the threshold.
        out.put(ParkEvent.NAME + "#threshold", "0 ns");
        return out;
    }

    /**
     * {@code settings} without JFR's CPU sampler, for a recording beside async-profiler's CPU
     * profile, whose samples feed the same tables ({@code JfrFiles.addProfilerSamples}): two
     * samplers would pay twice for one picture. Disabled, not removed: another recording of the
     * JVM's that enables it still hands it to this one, and the reader then keeps JFR's.
     */
    public static Map<String, String> withoutSamples(Map<String, String> settings) {
        Map<String, String> out = new HashMap<>(settings);
        out.keySet().removeIf(k -> k.startsWith(CpuSample.EVENT + "#"));
        out.put(CpuSample.EVENT + "#enabled", "false");
        return out;
    }

    /** The exception events, which only the agent's exception gate enables (see {@link #withoutThrows}). */
    public static final Set<String> THROWS = Set.of("jdk.JavaExceptionThrow", "jdk.JavaErrorThrow");

    /**
     * {@code settings} without the exception events, for a recording in a JVM where the agent's
     * exception gate records them within its budget: JFR hands every running recording the events
     * any of them enabled, so this recording still gets them, and enabling them here would keep
     * them on past the gate.
     */
    public static Map<String, String> withoutThrows(Map<String, String> settings) {
        Map<String, String> out = new HashMap<>(settings);
        out.keySet().removeIf(k -> THROWS.contains(k.substring(0, k.indexOf('#'))));
        return out;
    }

    /**
     * The exception events as culprit.jfc sets them, for the exception gate's own recording, with
     * JFR's own throttle at {@code perSecond} where the JDK has one (25+; older ones ignore it).
     */
    public static Map<String, String> throwsOnly(long perSecond) {
        Map<String, String> out = new HashMap<>();
        settings().forEach((k, v) -> {
            if (THROWS.contains(k.substring(0, k.indexOf('#')))) out.put(k, v);
        });
        out.put("jdk.JavaExceptionThrow#throttle", perSecond + "/s");
        return out;
    }

    /**
     * JFR's leak profiler alone, with stacks, and with a search for each sample's path to a GC root
     * when the recording stops (at most {@link #LEAK_PATH_SEARCH}, at a safepoint, after the load).
     * That search is what tells a leak from garbage no old-generation collection has reached yet:
     * both raise the heap after young collections, but only the leak's samples are still reachable
     * (measured: 89 of 90 kept arrays rooted, 0 of 42 dropped ones, with no old collection in the
     * run). {@code jdk.ActiveSetting} records the cutoff, so a reader knows the search ran.
     * culprit.jfc leaves the profiler off because of its cost on services that allocate large
     * arrays; the agent's leak watch records it once the heap after GC grows.
     */
    public static Map<String, String> leakProfiler() {
        return Map.of("jdk.OldObjectSample#enabled", "true", "jdk.OldObjectSample#stackTrace", "true",
                "jdk.OldObjectSample#cutoff", LEAK_PATH_SEARCH, "jdk.ActiveSetting#enabled", "true");
    }

    /** The longest the JVM may search the heap for the samples' paths to GC roots. */
    public static final String LEAK_PATH_SEARCH = "5 s";

    /**
     * culprit's settings for just these events (a command that needs exceptions only should not
     * pay for execution samples), plus {@code jdk.ExceptionStatistics} every second: a periodic
     * event that moves a live stream's clock forward even when nothing else happens.
     */
    public static Map<String, String> only(Set<String> events) {
        Map<String, String> out = new HashMap<>();
        settings().forEach((k, v) -> {
            String event = k.substring(0, k.indexOf('#'));
            if (events.contains(event) || event.equals("jdk.ExceptionStatistics")) out.put(k, v);
        });
        return out;
    }
}
