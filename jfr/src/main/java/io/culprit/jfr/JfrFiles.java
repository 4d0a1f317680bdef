package io.culprit.jfr;

import io.culprit.jfr.collect.CpuSample;
import io.culprit.jfr.collect.Observation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** Evidence from a recording the user already has (or culprit recorded): no live JVM needed. */
public final class JfrFiles {
    /**
     * Events that describe the JVM rather than something that happened in a window: JFR writes
     * them once per chunk, at its start, which lies before the window of a recording that was
     * started early. The collectors need them whatever the window.
     */
    static final Set<String> TIMELESS = Set.of("jdk.JVMInformation", "jdk.CPUInformation", "jdk.GCConfiguration",
            "jdk.GCHeapConfiguration", "jdk.UnsignedIntFlag", "jdk.UnsignedLongFlag",
            // The code cache's readings at the chunk's ends, and a fill during the warm-up: the
            // compiler it stopped stays stopped in the window.
            "jdk.CodeCacheConfiguration", "jdk.CodeCacheStatistics", "jdk.CodeCacheFull",
            // A recording's settings, written when it starts: the leak watch may start its
            // recording in the warm-up, and its cutoff says that the samples' roots were searched.
            "jdk.ActiveSetting");
    /**
     * Events the JVM writes only when the recording stops, after the window: JFR's leak profiler
     * emits its surviving samples then (their allocation times say where in the window they began).
     */
    static final Set<String> AT_STOP = Set.of("jdk.OldObjectSample");

    private JfrFiles() { }

    /** Every event of the recording. */
    public static JfrEvidence read(Path recording) throws IOException {
        return read(recording, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * Only the events that start within {@code [fromMs, toMs]} (epoch ms), plus the ones that
     * describe the JVM. Diagnose starts its recording before the warm-up, because turning JFR on
     * for the first time retransforms JDK classes and so throws compiled code away; the warm-up then
     * pays for the recompilation, and this window keeps the warm-up out of the evidence.
     */
    public static JfrEvidence read(Path recording, long fromMs, long toMs) throws IOException {
        if (!Files.isRegularFile(recording)) throw new IOException("no such recording: " + recording);
        JfrEvidence ev = new JfrEvidence();
        try (RecordingFile f = new RecordingFile(recording)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                if (within(e, fromMs, toMs)) ev.accept(e);
            }
        } catch (IOException e) {
            throw new IOException("not a readable JFR recording: " + recording + " (" + e.getMessage() + ")", e);
        }
        return ev;
    }

    /** See {@link #read(Path, long, long)}: the window's events of a recording. */
    public static JfrEvidence read(Path recording, Observation window) throws IOException {
        return read(recording, window.startMs(), window.endMs());
    }

    /**
     * Adds the CPU samples of an async-profiler recording ({@code profiler stop --jfr}) within the
     * window to {@code ev}, for a JFR recording made without JFR's own sampler ({@code jfr start
     * --no-samples}): diagnose runs async-profiler anyway, and one sampler costs the target less
     * than two. Returns the samples added: 0 when {@code ev} holds JFR's own samples.
     */
    public static long addProfilerSamples(Path profile, Observation window, JfrEvidence ev) throws IOException {
        long added = 0;
        try (RecordingFile f = new RecordingFile(profile)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                if (!e.getEventType().getName().equals(CpuSample.EVENT) || !within(e, window.startMs(), window.endMs())) continue;
                CpuSample s = CpuSample.ofProfiler(e);
                if (s == null) continue;
                if (!ev.sample(s)) return 0;
                added++;
            }
        } catch (IOException e) {
            throw new IOException("not a readable profiler recording: " + profile + " (" + e.getMessage() + ")", e);
        }
        return added;
    }

    private static boolean within(RecordedEvent e, long fromMs, long toMs) {
        if (fromMs == Long.MIN_VALUE && toMs == Long.MAX_VALUE) return true;
        long t = e.getStartTime().toEpochMilli();
        String type = e.getEventType().getName();
        return (t >= fromMs && t <= toMs) || TIMELESS.contains(type) || (t >= fromMs && AT_STOP.contains(type));
    }
}
