package io.culprit.agent.command.basic;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.command.Format;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code jvm}: what this JVM is and how it was started (runtime, OS, memory, GC, threads, classes). */
public final class JvmCommand implements Command {
    @Override
    public String name() {
        return "jvm";
    }

    @Override
    public String summary() {
        return "JVM identity, flags, OS, memory, collectors, threads, classes";
    }

    @Override
    public String usage() {
        return "jvm\n"
                + "  jvm          everything in one page\n"
                + "  jvm --json   (console: --json) the same as data";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws CommandException {
        Flags.parse(name(), args).atMostPositional(0);
        RuntimeMXBean rt = ManagementFactory.getRuntimeMXBean();
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();

        Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
        Map<String, Object> runtime = section(sections, "runtime");
        runtime.put("pid", rt.getPid());
        runtime.put("vm", rt.getVmName() + " " + rt.getVmVersion() + " (" + rt.getVmVendor() + ")");
        runtime.put("java.version", System.getProperty("java.version"));
        runtime.put("java.home", System.getProperty("java.home"));
        runtime.put("start", Instant.ofEpochMilli(rt.getStartTime()).toString());
        runtime.put("uptime", Format.duration(rt.getUptime()));
        runtime.put("arguments", String.join(" ", rt.getInputArguments()));
        runtime.put("classpath", rt.getClassPath());
        runtime.put("command", System.getProperty("sun.java.command", ""));

        Map<String, Object> system = section(sections, "os");
        system.put("name", os.getName() + " " + os.getVersion() + " " + os.getArch());
        system.put("processors", os.getAvailableProcessors());
        system.put("loadAverage", os.getSystemLoadAverage());
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            com.sun.management.OperatingSystemMXBean sun = (com.sun.management.OperatingSystemMXBean) os;
            system.put("physicalMemory", Format.bytes(sun.getTotalPhysicalMemorySize()));
            system.put("freeMemory", Format.bytes(sun.getFreePhysicalMemorySize()));
            system.put("processCpuTime", Format.duration(sun.getProcessCpuTime() / 1_000_000));
        }
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
            com.sun.management.UnixOperatingSystemMXBean unix = (com.sun.management.UnixOperatingSystemMXBean) os;
            system.put("fileDescriptors", unix.getOpenFileDescriptorCount() + " of " + unix.getMaxFileDescriptorCount());
        }

        Map<String, Object> memory = section(sections, "memory");
        memory.put("heap", usage(heap));
        memory.put("nonHeap", usage(nonHeap));
        List<String> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.add(gc.getName() + " (" + gc.getCollectionCount() + " collections, " + gc.getCollectionTime() + " ms)");
        }
        memory.put("collectors", String.join(", ", gcs));

        Map<String, Object> t = section(sections, "threads");
        t.put("live", threads.getThreadCount());
        t.put("daemon", threads.getDaemonThreadCount());
        t.put("peak", threads.getPeakThreadCount());
        t.put("started", threads.getTotalStartedThreadCount());
        // The JIT's accumulated compile time: a diagnose warms up until it stops climbing (the first
        // retransformation discards the JVM's compiled code, and the recompilation follows).
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) {
            Map<String, Object> j = section(sections, "jit");
            j.put("compiler", jit.getName());
            j.put("compilationMs", jit.getTotalCompilationTime());
        }
        Map<String, Object> c = section(sections, "classes");
        c.put("loaded", classes.getLoadedClassCount());
        c.put("totalLoaded", classes.getTotalLoadedClassCount());
        c.put("unloaded", classes.getUnloadedClassCount());

        if (ctx.json()) {
            ctx.data(sections);
            return;
        }
        StringBuilder sb = new StringBuilder();
        sections.forEach((name, values) -> {
            sb.append(name.toUpperCase()).append('\n');
            values.forEach((k, v) -> sb.append("  ").append(Format.pad(k, 16)).append(' ').append(v).append('\n'));
        });
        ctx.println(sb.toString().stripTrailing());
    }

    private static Map<String, Object> section(Map<String, Map<String, Object>> all, String name) {
        Map<String, Object> m = new LinkedHashMap<>();
        all.put(name, m);
        return m;
    }

    private static String usage(MemoryUsage u) {
        return "used " + Format.bytes(u.getUsed()) + ", committed " + Format.bytes(u.getCommitted())
                + ", max " + Format.bytes(u.getMax());
    }
}
