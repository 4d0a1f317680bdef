package io.culprit.agent.instrument;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Threads that run a method of a class about to be woven near the bottom of their stack: the
 * thread's own loop (a pool worker's {@code runWorker}, a consumer's poll loop). Retransforming
 * the class leaves such a frame running the old method, and HotSpot did not compile it again
 * (docs/BENCH.md, 2026-11-23: Tomcat's workers still ran {@code runWorker} interpreted minutes
 * later), so the loop runs interpreted until it returns, after reset and detach too. The user
 * asked for the weave, so it goes ahead; the command's Affect line says what it costs.
 */
final class LoopingThreads {

    /** How close to a stack's bottom a frame counts as the thread's loop. */
    static final int BOTTOM = 6;

    private LoopingThreads() { }

    /** "" or "; N thread(s) loop in a woven class (example): ...", for {@link Installation#note()}. */
    static String note(Set<Class<?>> classes) {
        Set<String> names = new HashSet<>();
        for (Class<?> c : classes) names.add(c.getName());
        int count = 0;
        String example = null;
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] stack = e.getValue();
            for (int i = stack.length - 1; i >= Math.max(0, stack.length - BOTTOM); i--) {  // the loop is the lowest
                StackTraceElement f = stack[i];
                if (!names.contains(f.getClassName())) continue;
                count++;
                if (example == null) {
                    String cls = f.getClassName();
                    example = e.getKey().getName() + " in " + cls.substring(cls.lastIndexOf('.') + 1) + "." + f.getMethodName();
                }
                break;
            }
        }
        if (count == 0) return "";
        return "; " + count + " thread(s) loop in a woven class (" + example + "): they keep running its old code,"
                + " interpreted, until those calls return, reset and detach included";
    }
}
