package io.culprit.jfr.collect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;

/** Stack frames as the case file writes them: {@code class.method:line}. */
public final class Frames {
    /** Deep enough to reach a Spring controller from a Tomcat thread, short enough to stay readable. */
    public static final int MAX_FRAMES = 40;

    private Frames() { }

    public static String format(RecordedFrame f) {
        RecordedMethod m = f.getMethod();
        if (m == null) return "?";
        String type = m.getType().getName();
        // async-profiler's recordings name classes as the JVM does internally (java/lang/String)
        String s = (type.indexOf('/') >= 0 ? type.replace('/', '.') : type) + "." + m.getName();
        int line = f.getLineNumber();
        return line > 0 ? s + ":" + line : s;
    }

    /**
     * Formatted stacks by the parser's stack-trace object. JFR's parser resolves each stack id of a
     * chunk to one object, so the events that share a stack share it: a 23 s recording of a busy
     * server had 11,664 events with stacks in 321 objects. Formatting up to 40 frames per event
     * (each frame's method, type and name looked up by field name) was the live stream's largest
     * cost in the target. Keys are weak, so a chunk's stacks leave with it (RecordedObject keeps
     * Object's identity equality); per thread, as each stream parses on one thread. The values
     * are JDK types only: this thread-local never holds one of culprit's classes.
     */
    private static final ThreadLocal<Map<RecordedStackTrace, List<String>>> FORMATTED = ThreadLocal.withInitial(WeakHashMap::new);

    /** Top frame first, at most {@link #MAX_FRAMES}; empty when the event has no stack. Unmodifiable. */
    public static List<String> of(RecordedStackTrace st) {
        return st == null ? List.of() : cached(FORMATTED.get(), st, -1);
    }

    /** async-profiler's stacks from their first Java frame ({@link CpuSample#ofProfiler}), formatted as {@link #of} does. */
    private static final ThreadLocal<Map<RecordedStackTrace, List<String>>> FORMATTED_JAVA = ThreadLocal.withInitial(WeakHashMap::new);

    static List<String> javaOf(RecordedStackTrace st, int first) {
        return cached(FORMATTED_JAVA.get(), st, first);
    }

    /** From frame {@code first}, or with -1 from below the park tracer's frames. */
    private static List<String> cached(Map<RecordedStackTrace, List<String>> formatted, RecordedStackTrace st, int first) {
        List<String> out = formatted.get(st);
        if (out == null) {
            out = Collections.unmodifiableList(format(st, first >= 0 ? first : tracerFrames(st.getFrames())));
            formatted.put(st, out);
        }
        return out;
    }

    private static List<String> format(RecordedStackTrace st, int first) {
        List<RecordedFrame> frames = st.getFrames();
        List<String> out = new ArrayList<>();
        for (int i = first; i < frames.size(); i++) {
            if (out.size() == MAX_FRAMES) break;
            out.add(format(frames.get(i)));
        }
        return out;
    }

    /**
     * How many top frames are the agent's park tracer (its listener, and the Bridge and dispatcher
     * or the method handles of the linked call site) above the {@code LockSupport} method it is
     * woven into (or a bounded queue's {@code put}): the park tracer's event commits from there, and
     * its stack starts at the park as JFR's own park event does. 0 for every other stack.
     */
    static int tracerFrames(List<RecordedFrame> frames) {
        for (int i = 0; i < frames.size() && i < 12; i++) {
            RecordedMethod m = frames.get(i).getMethod();
            String type = m == null ? "" : m.getType().getName();
            // The queues' put too: the tracer commits a full queue's wait at put's exit.
            if (type.equals("java.util.concurrent.locks.LockSupport") || type.equals("java.util.concurrent.ArrayBlockingQueue")
                    || type.equals("java.util.concurrent.LinkedBlockingQueue")) return i;
            boolean culprits = type.startsWith("io.culprit.agent.") || type.startsWith("io.culprit.bootstrap.");
            // Below the tracer's own frame (never on top), the call site's LambdaForms when not inlined.
            if (!culprits && !(i > 0 && type.startsWith("java.lang.invoke."))) return 0;
        }
        return 0;
    }

    /** The JDK's own code: never the answer to "which of your methods did this". */
    public static boolean isJdk(String frame) {
        return frame.startsWith("java.") || frame.startsWith("javax.") || frame.startsWith("jdk.")
                || frame.startsWith("sun.") || frame.startsWith("com.sun.");
    }

    /** The first frame that is not JDK code, or the top frame when all of it is. */
    public static String topNonJdk(List<String> stack) {
        for (String f : stack) if (!isJdk(f)) return f;
        return stack.isEmpty() ? "?" : stack.get(0);
    }

    /**
     * Drops the frames that construct the throwable itself ({@code Throwable.<init>}, subclass
     * constructors, JFR's tracer), so a throw stack starts at the code that threw.
     */
    public static List<String> fromThrowSite(List<String> stack) {
        int i = 0;
        while (i < stack.size() && (stack.get(i).contains(".<init>") || stack.get(i).startsWith("jdk.jfr.")
                || stack.get(i).startsWith("jdk.internal.event."))) i++;
        return i == stack.size() ? stack : stack.subList(i, stack.size());
    }

    /** Method part of a frame, without the line: used to group frames of one method. */
    public static String method(String frame) {
        int c = frame.lastIndexOf(':');
        return c > 0 ? frame.substring(0, c) : frame;
    }
}
