package io.culprit.agent.collect;

import io.culprit.jfr.collect.RuntimeCollector;
import io.culprit.model.Table;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Table {@code stuck-threads}: threads that waited in the same place, on the same object, from
 * the start of a collection to its end. Event-based evidence cannot see them: JFR and the park
 * tracer record a wait when it ends, and these never end (a pool whose workers wait for tasks
 * queued behind them, a deadlock, a request hung on a call without a timeout). Two thread dumps
 * show them: one at {@code collect start}, one at {@code collect stop}; a thread whose state,
 * stack and lock object are the same in both has not moved. Each dump is one safepoint, as
 * {@code jstack}'s is. Grouped by thread-name pattern (digits as #), state, lock class and stack.
 */
final class StuckThreads {

    static final List<String> COLUMNS = List.of("threads", "groupSize", "group", "state", "lockClass", "stack");
    private static final int FRAMES = 40;

    private final Map<Long, String> first;

    private StuckThreads(Map<Long, String> first) {
        this.first = first;
    }

    /** The first dump, at the start of the collection. */
    static StuckThreads start() {
        return new StuckThreads(waits(dump()));
    }

    /** The second dump: the threads that have not moved since the first, grouped. */
    Table stop(Map<String, Object> meta) {
        ThreadInfo[] now = dump();
        Map<String, Integer> groupSizes = new HashMap<>();
        for (ThreadInfo t : now) if (t != null) groupSizes.merge(group(t.getThreadName()), 1, Integer::sum);
        Map<Long, String> still = waits(now);
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        for (ThreadInfo t : now) {
            if (t == null) continue;
            String key = still.get(t.getThreadId());
            if (key == null || !key.equals(first.get(t.getThreadId()))) continue;
            String group = group(t.getThreadName());
            LockInfo lock = t.getLockInfo();
            List<String> stack = frames(t);
            Map<String, Object> row = rows.computeIfAbsent(group + '\n' + t.getThreadState() + '\n' + stack, k -> {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("threads", 0L);
                r.put("groupSize", (long) groupSizes.getOrDefault(group, 1));
                r.put("group", group);
                r.put("state", t.getThreadState().name());
                r.put("lockClass", lock == null ? "" : lock.getClassName());
                r.put("stack", stack);
                return r;
            });
            row.put("threads", (Long) row.get("threads") + 1);
        }
        List<Map<String, Object>> out = new ArrayList<>(rows.values());
        out.sort((a, b) -> Long.compare((Long) b.get("threads"), (Long) a.get("threads")));
        return new Table("stuck-threads", COLUMNS, out, meta);
    }

    private static ThreadInfo[] dump() {
        return ManagementFactory.getThreadMXBean().dumpAllThreads(false, false, FRAMES);
    }

    /** Thread id → what identifies its wait (state, lock object, stack), for waiting threads only. */
    private static Map<Long, String> waits(ThreadInfo[] dump) {
        Map<Long, String> out = new HashMap<>();
        for (ThreadInfo t : dump) {
            if (t == null) continue;
            Thread.State s = t.getThreadState();
            if (s != Thread.State.WAITING && s != Thread.State.TIMED_WAITING && s != Thread.State.BLOCKED) continue;
            LockInfo lock = t.getLockInfo();
            out.put(t.getThreadId(), s + "@" + (lock == null ? "" : lock.getClassName() + "@" + lock.getIdentityHashCode())
                    + Arrays.toString(t.getStackTrace()));
        }
        return out;
    }

    private static List<String> frames(ThreadInfo t) {
        List<String> out = new ArrayList<>();
        for (StackTraceElement e : t.getStackTrace()) {
            out.add(e.getClassName() + "." + e.getMethodName() + (e.getLineNumber() > 0 ? ":" + e.getLineNumber() : ""));
        }
        return out;
    }

    /** {@code pool-3-thread-12} → {@code pool-#-thread-#}: the threads of one pool share a group. */
    private static String group(String name) {
        return RuntimeCollector.threadGroup(name);
    }
}
