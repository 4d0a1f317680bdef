package io.culprit.jfr;

import io.culprit.jfr.collect.AllocationCollector;
import io.culprit.jfr.collect.ClassLoadingCollector;
import io.culprit.jfr.collect.CpuSample;
import io.culprit.jfr.collect.DbWaitCollector;
import io.culprit.jfr.collect.OldObjectCollector;
import io.culprit.jfr.collect.RequestWaitCollector;
import io.culprit.jfr.collect.EventCollector;
import io.culprit.jfr.collect.ExceptionCollector;
import io.culprit.jfr.collect.GcCollector;
import io.culprit.jfr.collect.HeapCollector;
import io.culprit.jfr.collect.HotspotCollector;
import io.culprit.jfr.collect.JitCollector;
import io.culprit.jfr.collect.JvmInfoCollector;
import io.culprit.jfr.collect.LockCollector;
import io.culprit.jfr.collect.Observation;
import io.culprit.jfr.collect.RuntimeCollector;
import io.culprit.jfr.collect.SampleCollector;
import io.culprit.jfr.collect.ThreadStartCollector;
import io.culprit.model.CaseFile;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import jdk.jfr.consumer.RecordedEvent;

/**
 * All of culprit's JFR collectors behind one door: feed events (from a file or a live stream),
 * then write the catalogue series and tables. Thread-safe: a stream thread may feed while another
 * thread writes a snapshot.
 */
public final class JfrEvidence {
    private final ExceptionCollector exceptions = new ExceptionCollector();
    private final ClassLoadingCollector classLoading = new ClassLoadingCollector();
    private final JvmInfoCollector jvm = new JvmInfoCollector();
    private final List<EventCollector> collectors = List.of(new GcCollector(), new HeapCollector(),
            new RuntimeCollector(), exceptions, classLoading, new LockCollector(), new HotspotCollector(),
            new AllocationCollector(), new OldObjectCollector(), new DbWaitCollector(), new RequestWaitCollector(),
            new ThreadStartCollector(), new JitCollector(), jvm);
    private final Map<String, List<EventCollector>> byEvent = new HashMap<>();
    private final List<SampleCollector> sampleCollectors = new ArrayList<>();
    /** JFR's own CPU samples seen: a profiler's are then not added (see {@link #sample}). */
    private long jfrSamples;
    private long firstMs = Long.MAX_VALUE;
    private long lastMs = Long.MIN_VALUE;
    private long events;

    public JfrEvidence() {
        for (EventCollector c : collectors) {
            for (String e : c.events()) byEvent.computeIfAbsent(e, k -> new ArrayList<>()).add(c);
            if (c instanceof SampleCollector) sampleCollectors.add((SampleCollector) c);
        }
    }

    /** Every JFR event type some collector reads: what a live stream must enable. */
    public Set<String> eventTypes() {
        return new TreeSet<>(byEvent.keySet());
    }

    public synchronized void accept(RecordedEvent e) {
        List<EventCollector> cs = byEvent.get(e.getEventType().getName());
        if (cs == null) return;
        events++;
        if (e.getEventType().getName().equals(CpuSample.EVENT)) jfrSamples++;
        // By end time: a park or wait that began before the recording (a thread idle for seconds)
        // ends inside it, and its start would stretch the span and dilute every rate.
        long t = e.getEndTime().toEpochMilli();
        firstMs = Math.min(firstMs, t);
        lastMs = Math.max(lastMs, t);
        for (EventCollector c : cs) c.accept(e);
    }

    /**
     * A CPU sample from async-profiler's recording ({@code JfrFiles.addProfilerSamples}), for a
     * recording made without JFR's sampler. Refused (false) once JFR's own samples were fed: both
     * would count one thread's CPU twice, and another recording in the JVM can turn JFR's sampler
     * back on for ours.
     */
    public synchronized boolean sample(CpuSample s) {
        if (jfrSamples > 0) return false;
        for (SampleCollector c : sampleCollectors) c.sample(s);
        return true;
    }

    /** Events some collector used. */
    public synchronized long events() {
        return events;
    }

    /** The time the events span, for recordings whose start the caller does not know. */
    public synchronized Observation observed(long requests) {
        if (firstMs == Long.MAX_VALUE) throw new IllegalStateException("no JFR events culprit reads were seen");
        return new Observation(firstMs, Math.max(firstMs + 1, lastMs), requests);
    }

    /** pid, jdk, vmName, jvmArgs, mainClass, cpus: what the recording says about its JVM. */
    public synchronized Map<String, String> target() {
        return new LinkedHashMap<>(jvm.target());
    }

    /** See {@link ExceptionCollector#escaped}. */
    public synchronized void escaped(Map<String, Long> escapedByType) {
        exceptions.escaped(escapedByType);
    }

    /** Lookups seen by instrumentation (service-loader, resources): merged into {@code classloading}. */
    public synchronized void classLookup(String kind, String name, String caller, List<String> stack, long count) {
        classLoading.add(kind, name, caller, stack, count);
    }

    public synchronized List<Series> series(Observation o) {
        List<Series> out = new ArrayList<>();
        for (EventCollector c : collectors) out.addAll(c.series(o));
        return out;
    }

    public synchronized Map<String, Table> tables(Observation o) {
        Map<String, Table> out = new LinkedHashMap<>();
        for (EventCollector c : collectors) for (Table t : c.tables(o)) out.put(t.name(), t);
        return out;
    }

    /** Writes every series and table into the case file (case.json is the caller's). */
    public void writeTo(CaseFile cf, Observation o) {
        for (Series s : series(o)) cf.write(s);
        for (Table t : tables(o).values()) cf.write(t);
    }
}
