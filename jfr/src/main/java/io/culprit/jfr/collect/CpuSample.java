package io.culprit.jfr.collect;

import java.time.Instant;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

/**
 * One sample of a thread on CPU, for the collectors that read CPU samples ({@link SampleCollector}):
 * JFR's own {@code jdk.ExecutionSample}, or async-profiler's event of the same name in its own
 * recording ({@link #ofProfiler}, or a recording of its given to {@code culprit analyze}). The
 * two differ in what they sample: JFR's sampler takes only Java threads running Java code;
 * async-profiler's CPU timers fire in whatever a thread runs, the JVM's own threads (compiler,
 * GC) and the JVM's C++ code or a native library under a Java method included. Every sample is
 * cut to the Java threads' Java frames, so the tables read alike: the CPU a method spends in the
 * JVM (an allocation's slow path, a class's resolution) counts as that method's own.
 */
public final class CpuSample {
    public static final String EVENT = "jdk.ExecutionSample";
    /** Which sampler took it: "jfr" or "async-profiler". */
    final String sampler;
    final long threadId;
    final Instant time;
    /** Top first: every frame for JFR's, the Java frames for the profiler's. */
    final List<RecordedFrame> frames;
    /** {@link #frames} formatted, at most {@link Frames#MAX_FRAMES}. */
    final List<String> stack;

    private CpuSample(String sampler, long threadId, Instant time, List<RecordedFrame> frames, List<String> stack) {
        this.sampler = sampler;
        this.threadId = threadId;
        this.time = time;
        this.frames = frames;
        this.stack = stack;
    }

    /** A sample in a JFR recording (JFR's own, or async-profiler's read as a recording: {@code culprit analyze}); null when it has none to give. */
    public static CpuSample ofJfr(RecordedEvent e) {
        return of(e, "jfr");
    }

    /** A sample of async-profiler's recording that diagnose made beside JFR's ({@code JfrFiles.addProfilerSamples}). */
    public static CpuSample ofProfiler(RecordedEvent e) {
        return of(e, "async-profiler");
    }

    /**
     * The sample from its first Java frame down; null for a thread that is not a Java thread
     * (async-profiler writes Java thread id 0 for the JVM's own) or a stack with no Java frame.
     * JFR's own samples hold Java threads' Java frames only, and pass whole.
     */
    private static CpuSample of(RecordedEvent e, String sampler) {
        RecordedStackTrace st = e.getStackTrace();
        RecordedThread t = e.getThread("sampledThread");
        if (st == null || t == null || t.getJavaThreadId() <= 0) return null;
        List<RecordedFrame> all = st.getFrames();
        int first = 0;
        while (first < all.size() && !isJava(all.get(first))) first++;
        if (first == all.size()) return null;
        return new CpuSample(sampler, t.getJavaThreadId(), e.getStartTime(), first == 0 ? all : all.subList(first, all.size()),
                first == 0 ? Frames.of(st) : Frames.javaOf(st, first));
    }

    /**
     * A Java method's frame. async-profiler types the JVM's and native libraries' frames "C++",
     * "Kernel" or "Native" with the library as the class and the placeholder descriptor {@code ()L;};
     * a Java native method ({@code Object.hashCode}) is "Native" with its real descriptor.
     */
    static boolean isJava(RecordedFrame f) {
        String type = f.getType();
        if ("C++".equals(type) || "Kernel".equals(type)) return false;
        if (!"Native".equals(type)) return true;  // Interpreted, JIT compiled, C1 compiled, Inlined
        return f.getMethod() != null && !"()L;".equals(f.getMethod().getDescriptor());
    }
}
