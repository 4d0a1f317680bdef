package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The non-GC VM operation that took most of the VM thread's time ({@code vm-operations}, from
 * JFR's {@code jdk.ExecuteVMOperation}), what asks for it, and the application code that called
 * the JDK method which asks for it (found in the cpu profile: the caller waits for the operation,
 * then builds its result, so it is sampled there). Keyed to the JDK's operations and entry
 * points, never to an application.
 */
final class VmOperation {
    final String summary;
    final String culprit;
    final String fix;

    private VmOperation(String summary, String culprit, String fix) {
        this.summary = summary;
        this.culprit = culprit;
        this.fix = fix;
    }

    /** Thread dumps from Java: all of these run VM_ThreadDump at a safepoint (JDK 11-25). */
    private static final Set<String> THREAD_DUMP = Set.of("java.lang.Thread.getAllStackTraces", "java.lang.Thread.dumpThreads",
            "java.lang.Thread.getStackTrace", "sun.management.ThreadImpl.dumpThreads0", "sun.management.ThreadImpl.getThreadInfo1",
            "sun.management.ThreadImpl.dumpAllThreads", "sun.management.ThreadImpl.getThreadInfo");
    private static final Set<String> DEADLOCKS = Set.of("sun.management.ThreadImpl.findDeadlockedThreads0",
            "sun.management.ThreadImpl.findMonitorDeadlockedThreads0");
    private static final Set<String> REDEFINE = Set.of("sun.instrument.InstrumentationImpl.retransformClasses0",
            "sun.instrument.InstrumentationImpl.redefineClasses0");
    private static final Set<String> HEAP_DUMP = Set.of("com.sun.management.internal.HotSpotDiagnostic.dumpHeap0");

    /** The top non-GC operation, when the case recorded any; empty without the table or with GC operations only. */
    static Optional<VmOperation> read(Evidence ev, Numbers n) {
        Optional<Table> ops = ev.rows("vm-operations");
        if (ops.isEmpty()) return Optional.empty();
        Table t = ops.get();
        int top = -1;
        double nonGc = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            String op = t.text(i, "operation");
            if (op == null || isGc(op)) continue;
            nonGc += finite(t.number(i, "totalMs"));
            if (top < 0 || t.number(i, "totalMs") > t.number(top, "totalMs")) top = i;
        }
        if (top < 0 || !(t.number(top, "totalMs") > 0)) return Optional.empty();
        String op = t.text(top, "operation");
        String ref = "tables/vm-operations#" + top;
        String callerThreads = Evidence.text(t, top, "caller");
        double callerShare = t.number(top, "callerShare");
        Set<String> entries = entries(op);
        Predicate<String> entry = f -> entries.contains(Frames.stripLine(f));
        String site = entries.isEmpty() ? null : ev.cpuCaller(entry);
        String summary = op + " ran " + n.tag(Fmt.num(t.number(top, "count")), ref) + " times for "
                + n.tag(Fmt.ms(t.number(top, "totalMs")), ref) + " (" + n.tag(Fmt.pct(t.number(top, "totalMs") / nonGc), "tables/vm-operations")
                + " of the VM thread's non-GC time)"
                + (callerThreads.isEmpty() ? "" : ", asked by " + callerThreads
                        + (Double.isFinite(callerShare) ? " (" + n.tag(Fmt.pct(callerShare), ref) + ")" : ""))
                + (site == null ? "" : ", from " + site);
        return Optional.of(new VmOperation(summary, site != null ? site : "VM operation " + op, fix(op, site)));
    }

    private static String fix(String op, String site) {
        String at = site == null ? "" : " at " + site;
        switch (op) {
            case "ThreadDump":
                return "Stop taking thread dumps on a hot path" + at + ": Thread.getAllStackTraces, Thread.getStackTrace of"
                        + " another thread and ThreadMXBean.dumpAllThreads/getThreadInfo with stacks each stop every thread."
                        + " For the current thread's caller use StackWalker; sample other threads rarely, off the request path.";
            case "FindDeadlocks":
                return "Call ThreadMXBean.findDeadlockedThreads rarely (a health check every minute, not per request)" + at + ".";
            case "RedefineClasses":
                return "An agent redefines or retransforms classes" + at + " while the service runs: let it finish its"
                        + " instrumentation at start-up, or remove the agent.";
            case "HeapDumper":
                return "Stop heap dumps under load" + at + ".";
            case "GC_HeapInspection":
                return "Stop class histograms (jmap -histo, jcmd GC.class_histogram) under load.";
            default:
                String lc = op.toLowerCase(Locale.ROOT);
                if (lc.contains("deoptimize")) {
                    return "Deoptimization storms come from class-hierarchy changes (classes loaded at run time) and"
                            + " megamorphic call sites: find them with -Xlog:deoptimization=debug and stop loading classes per request.";
                }
                if (lc.contains("bias")) return "Biased-lock revocations: run with -XX:-UseBiasedLocking (the default from JDK 15).";
                if (lc.startsWith("get") && lc.contains("stacktrace")) {
                    return "A JVMTI agent (a profiler or APM) takes stack traces of all threads: lower its sampling rate or remove it.";
                }
                return "Find what asks for " + op + " (-Xlog:safepoint shows each stop) and remove its trigger.";
        }
    }

    /** The JDK methods through which Java code asks for {@code op}. */
    private static Set<String> entries(String op) {
        switch (op) {
            case "ThreadDump": return THREAD_DUMP;
            case "FindDeadlocks": return DEADLOCKS;
            case "RedefineClasses": return REDEFINE;
            case "HeapDumper": return HEAP_DUMP;
            default: return Set.of();
        }
    }

    /** Collections and their phases, by the names HotSpot gives their VM operations (G1, Parallel, Serial, ZGC, Shenandoah). */
    static boolean isGc(String op) {
        String lc = op.toLowerCase(Locale.ROOT);
        return lc.contains("collect") || lc.startsWith("g1") || lc.startsWith("z") || lc.contains("shenandoah")
                || lc.startsWith("parallelgc") || lc.endsWith("gc");
    }
}
