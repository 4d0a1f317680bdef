package io.culprit.agent.command.thread;

import java.lang.management.LockInfo;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * jstack-style text for one thread, including the locks it holds and waits on.
 * ThreadInfo.toString() would cut every stack at eight frames.
 */
final class StackRenderer {
    private StackRenderer() {
    }

    static String header(ThreadInfo ti) {
        StringBuilder sb = new StringBuilder();
        sb.append('"').append(ti.getThreadName()).append("\" Id=").append(ti.getThreadId()).append(' ').append(ti.getThreadState());
        if (ti.getLockName() != null) {
            sb.append(ti.getThreadState() == Thread.State.BLOCKED ? " on " : " waiting for ").append(ti.getLockName());
        }
        if (ti.getLockOwnerName() != null) {
            sb.append(" owned by \"").append(ti.getLockOwnerName()).append("\" Id=").append(ti.getLockOwnerId());
        }
        if (ti.isSuspended()) {
            sb.append(" (suspended)");
        }
        return sb.toString();
    }

    static String render(ThreadInfo ti, int maxFrames) {
        StringBuilder sb = new StringBuilder(header(ti)).append('\n');
        StackTraceElement[] stack = ti.getStackTrace();
        MonitorInfo[] monitors = ti.getLockedMonitors();
        int shown = Math.min(stack.length, maxFrames);
        for (int i = 0; i < shown; i++) {
            sb.append("    at ").append(stack[i]).append('\n');
            if (i == 0 && ti.getLockInfo() != null) {
                sb.append("    -  ").append(ti.getThreadState() == Thread.State.BLOCKED ? "blocked on " : "waiting on ")
                        .append(ti.getLockInfo()).append('\n');
            }
            for (MonitorInfo mi : monitors) {
                if (mi.getLockedStackDepth() == i) {
                    sb.append("    -  locked ").append(mi).append('\n');
                }
            }
        }
        if (shown < stack.length) {
            sb.append("    ... ").append(stack.length - shown).append(" more\n");
        }
        LockInfo[] syncs = ti.getLockedSynchronizers();
        if (syncs.length > 0) {
            sb.append("    Locked synchronizers:\n");
            for (LockInfo li : syncs) {
                sb.append("    - ").append(li).append('\n');
            }
        }
        return sb.toString();
    }

    /** The same as data for {@code --json}. */
    static Map<String, Object> data(ThreadInfo ti, int maxFrames) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", ti.getThreadId());
        m.put("name", ti.getThreadName());
        m.put("state", ti.getThreadState().name());
        m.put("lock", ti.getLockName());
        m.put("lockOwnerId", ti.getLockOwnerId());
        List<String> frames = new ArrayList<>();
        StackTraceElement[] stack = ti.getStackTrace();
        for (int i = 0; i < Math.min(stack.length, maxFrames); i++) {
            frames.add(stack[i].toString());
        }
        m.put("stack", frames);
        List<String> held = new ArrayList<>();
        for (MonitorInfo mi : ti.getLockedMonitors()) {
            held.add(mi.toString());
        }
        for (LockInfo li : ti.getLockedSynchronizers()) {
            held.add(li.toString());
        }
        m.put("holds", held);
        return m;
    }
}
