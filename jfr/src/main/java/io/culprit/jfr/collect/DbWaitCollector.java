package io.culprit.jfr.collect;

import io.culprit.jfr.ParkEvent;
import io.culprit.model.ClientLibraries;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;

/**
 * Table {@code db-waits}: time request threads spend blocked inside a JDBC statement's execution,
 * by the code that ran the statement. Whatever the driver waits on shows up as one of JFR's
 * blocking events under a {@code *Statement.execute*} frame: a socket read for a database
 * server (the server holds the lock or runs the query), a monitor wait or a park for an embedded
 * one (H2 parks its transaction until the row's holder commits). The caller is the first frame,
 * towards the root, outside the JDK and the data-access libraries, so it names the application
 * method, not the pool's proxy. {@code lockFrame} keeps a database frame that names a lock, when
 * the stack has one: direct evidence of a row lock where a socket read is only circumstantial.
 */
public final class DbWaitCollector implements EventCollector {
    private static final int TOP = 20;
    private static final class Row {
        final String caller, method;
        long events;
        double waitMs;
        final Map<String, long[]> kinds = new HashMap<>();
        final StackCounter stacks = new StackCounter();
        String lockFrame;

        Row(String caller, String method) {
            this.caller = caller;
            this.method = method;
        }
    }

    private final Map<String, Row> rows = new HashMap<>();

    @Override
    public Set<String> events() {
        return Set.of("jdk.SocketRead", "jdk.JavaMonitorWait", "jdk.ThreadPark", ParkEvent.NAME, "jdk.JavaMonitorEnter");
    }

    @Override
    public void accept(RecordedEvent e) {
        List<String> stack = Frames.of(e.getStackTrace());
        int exec = statementFrame(stack);
        if (exec < 0) return;
        String caller = null;
        for (int i = exec + 1; i < stack.size() && caller == null; i++) {
            if (!Frames.isJdk(stack.get(i)) && !ClientLibraries.isDataAccess(stack.get(i))) caller = Frames.method(stack.get(i));
        }
        String statement = Frames.method(stack.get(exec));
        String method = statement.substring(statement.lastIndexOf('.') + 1);
        String key = caller + ' ' + method;
        String site = caller;  // null when the recorded stack ends before an application frame: written as null, not "null"
        Row r = rows.computeIfAbsent(key, k -> new Row(site, method));
        r.events++;
        r.waitMs += EventCollector.ms(EventCollector.waited(e));
        r.kinds.computeIfAbsent(kind(e.getEventType().getName()), k -> new long[1])[0]++;
        r.stacks.add(stack);
        if (r.lockFrame == null) r.lockFrame = lockFrame(stack, exec);
    }

    /**
     * Index of the outermost frame of the first run of {@code *Statement.execute*} frames, or -1:
     * the API call the application made (a pool proxy's {@code executeUpdate}), not the driver's
     * internal {@code executeUpdateInternal}.
     */
    static int statementFrame(List<String> stack) {
        int found = -1;
        for (int i = 0; i < stack.size(); i++) {
            if (isExecute(stack.get(i))) found = i;
            else if (found >= 0) break;
        }
        return found;
    }

    private static boolean isExecute(String frame) {
        String m = Frames.method(frame);
        int dot = m.lastIndexOf('.');
        return dot > 0 && m.substring(dot + 1).startsWith("execute") && m.substring(0, dot).contains("Statement");
    }

    private static String lockFrame(List<String> stack, int exec) {
        for (int i = 0; i < exec; i++) {
            String f = stack.get(i);
            if (!Frames.isJdk(f) && namesALock(Frames.method(f))) return Frames.method(f);
        }
        return null;
    }

    /** The words of a camel-case name: "flushIfDeadlockRisk" is flush, If, Deadlock, Risk. */
    private static final Pattern WORDS = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+");
    private static final Set<String> LOCK_WORDS = Set.of("lock", "locks", "locked", "locking", "locker");

    /**
     * Whether a frame's class or method names a lock: H2's {@code TransactionMap.lock}, a
     * {@code RowLock}, a {@code LockManager}; not {@code flushIfDeadlockRisk} (PostgreSQL's driver
     * on its way to a socket read), {@code BlockingQueue} or {@code clock}.
     */
    static boolean namesALock(String method) {
        String simple = method.substring(method.lastIndexOf('.', method.lastIndexOf('.') - 1) + 1);
        for (String word : WORDS.split(simple)) if (LOCK_WORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) return true;
        return false;
    }

    private static String kind(String event) {
        switch (event) {
            case "jdk.SocketRead": return "socket";
            case "jdk.JavaMonitorWait": return "monitor-wait";
            case "jdk.ThreadPark":
            case ParkEvent.NAME: return "park";
            default: return "monitor";
        }
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort((a, b) -> Double.compare(b.waitMs, a.waitMs));
        List<Map<String, Object>> out = new ArrayList<>();
        for (Row r : sorted.subList(0, Math.min(TOP, sorted.size()))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("caller", r.caller);
            m.put("method", r.method);
            m.put("kind", r.kinds.entrySet().stream().max((x, y) -> Long.compare(x.getValue()[0], y.getValue()[0]))
                    .map(Map.Entry::getKey).orElse(null));
            m.put("events", r.events);
            m.put("waitMs", r.waitMs);
            m.put("lockFrame", r.lockFrame);
            m.put("stack", r.stacks.top());
            out.add(m);
        }
        return List.of(new Table("db-waits", List.of("caller", "method", "kind", "events", "waitMs", "lockFrame", "stack"), out, o.meta()));
    }
}
