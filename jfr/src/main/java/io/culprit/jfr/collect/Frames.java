package io.culprit.jfr.collect;

import java.util.ArrayList;
import java.util.List;
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
        String s = m.getType().getName() + "." + m.getName();
        int line = f.getLineNumber();
        return line > 0 ? s + ":" + line : s;
    }

    /** Top frame first, at most {@link #MAX_FRAMES}; empty when the event has no stack. */
    public static List<String> of(RecordedStackTrace st) {
        List<String> out = new ArrayList<>();
        if (st == null) return out;
        for (RecordedFrame f : st.getFrames()) {
            if (out.size() == MAX_FRAMES) break;
            out.add(format(f));
        }
        return out;
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
