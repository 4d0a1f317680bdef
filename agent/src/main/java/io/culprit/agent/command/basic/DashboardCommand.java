package io.culprit.agent.command.basic;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.command.Format;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code dashboard [-n N] [-i ms]}: one screen of JVM health, {@code N} frames {@code ms} apart.
 * Process CPU is measured between frames (the first frame over a short window) rather than
 * taken from getProcessCpuLoad(), whose first reading is meaningless.
 */
public final class DashboardCommand implements Command {
    // First-frame CPU window: long enough to mean something, short enough for a quick answer.
    private static final long FIRST_WINDOW_MS = 100;

    @Override
    public String name() {
        return "dashboard";
    }

    @Override
    public String summary() {
        return "heap, memory pools, GC, process CPU, threads by state, classes, uptime";
    }

    @Override
    public String usage() {
        return "dashboard [-n N] [-i ms]\n"
                + "  dashboard               one frame\n"
                + "  dashboard -n 5 -i 2000  five frames, two seconds apart (Ctrl-C stops)";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws CommandException, InterruptedException {
        Flags f = Flags.parse(name(), args, "-n", "-i").atMostPositional(0);
        long frames = f.longValue("-n", 1, 1, 100_000);
        long interval = f.longValue("-i", 5000, 100, 3_600_000);
        CpuMeter cpu = new CpuMeter();
        Thread.sleep(FIRST_WINDOW_MS);
        for (long k = 0; k < frames && !ctx.cancelled(); k++) {
            if (k > 0) {
                Thread.sleep(interval);
            }
            Map<String, Object> frame = sample(cpu);
            if (ctx.json()) {
                ctx.data(frame);
            } else {
                ctx.println(render(frame));
            }
        }
    }

    /** One frame as data; render() turns it into text, so text and JSON never disagree. */
    static Map<String, Object> sample(CpuMeter cpu) {
        Map<String, Object> frame = new LinkedHashMap<>();
        frame.put("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime());
        frame.put("cpu", cpu.next());
        Map<String, Object> heap = usage(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage());
        frame.put("heap", heap);
        frame.put("nonHeap", usage(ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage()));
        List<Map<String, Object>> pools = new ArrayList<>();
        // What each heap pool held right after its last collection: the live set, without the
        // sawtooth of "used". A floor that climbs from frame to frame is a leak (heap-leak's confirm).
        long heapAfterGc = 0;
        boolean afterGcKnown = false;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.getName());
            m.put("type", p.getType().name());
            m.putAll(usage(p.getUsage()));
            MemoryUsage afterGc = p.getType() == MemoryType.HEAP ? p.getCollectionUsage() : null;
            m.put("afterGc", afterGc == null ? null : afterGc.getUsed());
            if (afterGc != null) {
                heapAfterGc += afterGc.getUsed();
                afterGcKnown = true;
            }
            pools.add(m);
        }
        heap.put("afterGc", afterGcKnown ? heapAfterGc : null);
        frame.put("pools", pools);
        List<Map<String, Object>> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", gc.getName());
            m.put("count", gc.getCollectionCount());
            m.put("timeMs", gc.getCollectionTime());
            gcs.add(m);
        }
        frame.put("gc", gcs);
        ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
        Map<Thread.State, Integer> states = new EnumMap<>(Thread.State.class);
        for (Thread.State s : Thread.State.values()) {
            states.put(s, 0);
        }
        for (ThreadInfo ti : tmx.getThreadInfo(tmx.getAllThreadIds(), 0)) {
            if (ti != null) {
                states.merge(ti.getThreadState(), 1, Integer::sum);
            }
        }
        Map<String, Object> threads = new LinkedHashMap<>();
        threads.put("live", tmx.getThreadCount());
        threads.put("daemon", tmx.getDaemonThreadCount());
        threads.put("peak", tmx.getPeakThreadCount());
        Map<String, Object> byState = new LinkedHashMap<>();
        states.forEach((s, n) -> byState.put(s.name(), n));
        threads.put("states", byState);
        frame.put("threads", threads);
        Map<String, Object> classes = new LinkedHashMap<>();
        classes.put("loaded", ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
        classes.put("unloaded", ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount());
        frame.put("classes", classes);
        return frame;
    }

    private static Map<String, Object> usage(MemoryUsage u) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("used", u.getUsed());
        m.put("committed", u.getCommitted());
        m.put("max", u.getMax());
        return m;
    }

    @SuppressWarnings("unchecked")
    static String render(Map<String, Object> f) {
        StringBuilder sb = new StringBuilder();
        Map<String, Object> cpu = (Map<String, Object>) f.get("cpu");
        Map<String, Object> th = (Map<String, Object>) f.get("threads");
        Map<String, Object> cl = (Map<String, Object>) f.get("classes");
        sb.append("uptime ").append(Format.duration((Long) f.get("uptimeMs")))
                .append("   process cpu ").append(Format.percent((Double) cpu.get("percent")))
                .append(" (of one core, over ").append(cpu.get("windowMs")).append(" ms; ")
                .append(cpu.get("cores")).append(" cores)\n");
        sb.append("threads ").append(th.get("live")).append(" live, ").append(th.get("daemon")).append(" daemon, ")
                .append(th.get("peak")).append(" peak   ");
        ((Map<String, Object>) th.get("states")).forEach((s, n) -> sb.append(s).append(' ').append(n).append("  "));
        sb.append("\nclasses ").append(cl.get("loaded")).append(" loaded, ").append(cl.get("unloaded")).append(" unloaded\n\n");
        sb.append(Format.pad("MEMORY", 42)).append(Format.padLeft("USED", 9)).append(Format.padLeft("COMMITTED", 11))
                .append(Format.padLeft("MAX", 9)).append(Format.padLeft("USAGE", 8)).append(Format.padLeft("AFTER GC", 10)).append('\n');
        row(sb, "heap", (Map<String, Object>) f.get("heap"));
        for (Map<String, Object> p : (List<Map<String, Object>>) f.get("pools")) {
            row(sb, "  " + p.get("name") + ("HEAP".equals(p.get("type")) ? "" : " (non-heap)"), p);
        }
        row(sb, "non-heap", (Map<String, Object>) f.get("nonHeap"));
        sb.append('\n').append(Format.pad("GC", 42)).append(Format.padLeft("COUNT", 9)).append(Format.padLeft("TIME", 11)).append('\n');
        for (Map<String, Object> g : (List<Map<String, Object>>) f.get("gc")) {
            sb.append(Format.pad((String) g.get("name"), 42)).append(Format.padLeft(String.valueOf(g.get("count")), 9))
                    .append(Format.padLeft(g.get("timeMs") + "ms", 11)).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    private static void row(StringBuilder sb, String name, Map<String, Object> u) {
        long used = (Long) u.get("used");
        long max = (Long) u.get("max");
        sb.append(Format.pad(name, 42)).append(Format.padLeft(Format.bytes(used), 9))
                .append(Format.padLeft(Format.bytes((Long) u.get("committed")), 11))
                .append(Format.padLeft(Format.bytes(max), 9))
                .append(Format.padLeft(max > 0 ? Format.percent(100.0 * used / max) : "-", 8))
                .append(Format.padLeft(u.get("afterGc") instanceof Long ? Format.bytes((Long) u.get("afterGc")) : "-", 10)).append('\n');
    }

    /** Process CPU between consecutive readings, as % of one core (like top). */
    static final class CpuMeter {
        private final com.sun.management.OperatingSystemMXBean os;
        private long lastCpu;
        private long lastWall;

        CpuMeter() {
            java.lang.management.OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
            os = bean instanceof com.sun.management.OperatingSystemMXBean ? (com.sun.management.OperatingSystemMXBean) bean : null;
            lastCpu = os == null ? 0 : os.getProcessCpuTime();
            lastWall = System.nanoTime();
        }

        Map<String, Object> next() {
            long cpuNow = os == null ? 0 : os.getProcessCpuTime();
            long wallNow = System.nanoTime();
            long wall = Math.max(1, wallNow - lastWall);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("percent", os == null || cpuNow < 0 ? -1.0 : 100.0 * (cpuNow - lastCpu) / wall);
            m.put("windowMs", wall / 1_000_000);
            m.put("cores", Runtime.getRuntime().availableProcessors());
            lastCpu = cpuNow;
            lastWall = wallNow;
            return m;
        }
    }
}
