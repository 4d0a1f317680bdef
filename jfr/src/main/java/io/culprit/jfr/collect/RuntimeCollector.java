package io.culprit.jfr.collect;

import io.culprit.jfr.collect.Windows.Mode;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;

/**
 * Safepoints, process CPU, live threads and per-thread CPU: series {@code safepoints},
 * {@code cpu}, {@code threads} (column {@code live}; the state counts come from thread dumps,
 * not JFR), table {@code thread-cpu} (the busiest threads: case 5's "many threads at 10 %") and
 * table {@code vm-operations}: what the VM thread ran (thread dumps, class redefinition,
 * deoptimization, GC) and which thread asked, so a stop is named rather than "a safepoint".
 */
public final class RuntimeCollector implements EventCollector {
    private final Windows safepoints = new Windows("safepoints", 1000)
            .column("count", Mode.SUM, "count").column("totalMs", Mode.SUM, "ms");
    private final Windows cpu = new Windows("cpu", 1000)
            .column("jvmUser", Mode.LAST, "ratio").column("jvmSystem", Mode.LAST, "ratio")
            .column("machineTotal", Mode.LAST, "ratio");
    private final Windows threads = new Windows("threads", 1000).column("live", Mode.LAST, "count");
    private final Map<String, double[]> threadCpu = new LinkedHashMap<>(); // samples, user, system, max
    private final Map<String, VmOp> vmOps = new LinkedHashMap<>();

    /** One VM operation's executions: their time, how many stopped at a safepoint, and who asked, by thread group. */
    private static final class VmOp {
        final Tally time = new Tally();
        long atSafepoint;
        final Map<String, long[]> callers = new HashMap<>();
    }

    @Override
    public Set<String> events() {
        return Set.of("jdk.SafepointBegin", "jdk.CPULoad", "jdk.JavaThreadStatistics", "jdk.ThreadCPULoad", "jdk.ExecuteVMOperation");
    }

    @Override
    public void accept(RecordedEvent e) {
        long t = EventCollector.epochMs(e);
        switch (e.getEventType().getName()) {
            case "jdk.SafepointBegin":
                safepoints.add(t, "count", 1);
                safepoints.add(t, "totalMs", EventCollector.ms(e.getDuration()));
                break;
            case "jdk.CPULoad":
                cpu.add(t, "jvmUser", e.getFloat("jvmUser"));
                cpu.add(t, "jvmSystem", e.getFloat("jvmSystem"));
                cpu.add(t, "machineTotal", e.getFloat("machineTotal"));
                break;
            case "jdk.JavaThreadStatistics":
                threads.add(t, "live", e.getLong("activeCount"));
                break;
            case "jdk.ExecuteVMOperation":
                vmOperation(e);
                break;
            default:
                RecordedThread th = e.getThread();
                String name = th == null ? "?" : th.getJavaName() != null ? th.getJavaName() : th.getOSName();
                double[] c = threadCpu.computeIfAbsent(name, k -> new double[4]);
                double user = e.getFloat("user"), sys = e.getFloat("system");
                c[0]++;
                c[1] += user;
                c[2] += sys;
                c[3] = Math.max(c[3], user + sys);
        }
    }

    private void vmOperation(RecordedEvent e) {
        String op = e.getString("operation") == null ? "?" : e.getString("operation");
        VmOp v = vmOps.computeIfAbsent(op, k -> new VmOp());
        double ms = EventCollector.ms(e.getDuration());
        v.time.add(ms, ms);
        if (e.getBoolean("safepoint")) v.atSafepoint++;
        RecordedThread caller = e.getValue("caller");
        String name = caller == null ? null : caller.getJavaName() != null ? caller.getJavaName() : caller.getOSName();
        if (name != null && v.callers.size() < 100) v.callers.computeIfAbsent(threadGroup(name), k -> new long[1])[0]++;
    }

    /** A thread's name with its numbers as #, so a pool's threads count as one: http-nio-8080-exec-7 → http-nio-#-exec-#. */
    public static String threadGroup(String name) {
        return name.replaceAll("[0-9]+", "#");
    }

    @Override
    public List<Series> series(Observation o) {
        List<Series> out = new ArrayList<>();
        if (!safepoints.isEmpty()) out.add(safepoints.build(o.startMs(), o.endMs()));
        if (!cpu.isEmpty()) out.add(cpu.build(o.startMs(), o.endMs()));
        if (!threads.isEmpty()) out.add(threads.build(o.startMs(), o.endMs()));
        return out;
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Table> out = new ArrayList<>();
        threadCpu(o).ifPresent(out::add);
        if (!vmOps.isEmpty()) out.add(vmOperations(o));
        return out;
    }

    private Table vmOperations(Observation o) {
        List<Map<String, Object>> rows = new ArrayList<>();
        vmOps.forEach((op, v) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("operation", op);
            v.time.into(r, "totalMs");
            r.put("atSafepoint", v.atSafepoint);
            Map.Entry<String, long[]> top = v.callers.entrySet().stream()
                    .max((a, b) -> Long.compare(a.getValue()[0], b.getValue()[0])).orElse(null);
            r.put("caller", top == null ? null : top.getKey());
            r.put("callerShare", top == null ? null : top.getValue()[0] / (double) v.time.count);
            rows.add(r);
        });
        rows.sort((a, b) -> Double.compare((Double) b.get("totalMs"), (Double) a.get("totalMs")));
        return new Table("vm-operations", List.of("operation", "count", "totalMs", "maxMs", "atSafepoint", "caller", "callerShare"),
                rows, o.meta());
    }

    private Optional<Table> threadCpu(Observation o) {
        if (threadCpu.isEmpty()) return Optional.empty();
        List<Map<String, Object>> rows = new ArrayList<>();
        threadCpu.forEach((name, c) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("thread", name);
            r.put("avgUser", c[1] / c[0]);
            r.put("avgSystem", c[2] / c[0]);
            r.put("maxTotal", c[3]);
            rows.add(r);
        });
        rows.sort((a, b) -> Double.compare((double) b.get("avgUser") + (double) b.get("avgSystem"),
                (double) a.get("avgUser") + (double) a.get("avgSystem")));
        return Optional.of(new Table("thread-cpu", List.of("thread", "avgUser", "avgSystem", "maxTotal"),
                rows.subList(0, Math.min(50, rows.size())), o.meta()));
    }
}
