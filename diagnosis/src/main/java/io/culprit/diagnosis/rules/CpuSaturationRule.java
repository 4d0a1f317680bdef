package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * CPU saturation of the machine, and how much of it is this JVM. A symptom when a CPU consumer
 * (exceptions, class loading, construction, logging, serialization, GC) explains it; it in turn
 * explains inflated call times and latency, because every thread waits for a core.
 */
public final class CpuSaturationRule implements Rule {
    /** At 85 % of all cores run queues form and latency climbs faster than load. */
    static final double WARN = 0.85;
    static final double CRITICAL = 0.95;
    /** Below half of the busy CPU, this JVM is not what saturates the machine. */
    static final double OTHERS_SHARE = 0.5;
    /** A CPU consumer that burns a tenth of the machine is a credible cause of its saturation. */
    public static final double EXPLAINS_SHARE = 0.10;

    static final String ID = "cpu-saturation";

    @Override public String id() { return ID; }
    @Override public String title() { return "CPU saturated"; }

    /**
     * Under a load test the CPU is meant to be busy: saturation says the work per request is what
     * sets capacity, not which work. The verdict goes to the consumer that explains it; alone it
     * is reported as "no cause identified" with the hottest frame to look at.
     */
    @Override public boolean symptom() { return true; }

    /**
     * True when the machine is saturated mostly by other processes: this JVM's threads then wait
     * for a core, which stretches every pause measured in wall time (time-to-safepoint above all).
     */
    public static boolean busyWithOthers(Evidence ev) {
        double busy = ev.stats("cpu", "machineTotal").map(s -> s.quantile(0.9)).orElse(Double.NaN);
        return busy >= WARN && othersDominate(busy, jvmShare(ev));
    }

    /**
     * True when the machine's CPU is saturated and this JVM is most of it: every thread of this
     * service that could run waits for a core, wherever it holds what others need.
     */
    static boolean saturatedByThisJvm(Evidence ev) {
        double busy = ev.stats("cpu", "machineTotal").map(s -> s.quantile(0.9)).orElse(Double.NaN);
        double jvm = jvmShare(ev);
        return busy >= WARN && Double.isFinite(jvm) && !othersDominate(busy, jvm);
    }

    /** The machine's busy CPU at p90 (0..1); NaN when not recorded. */
    static double busyP90(Evidence ev) {
        return ev.stats("cpu", "machineTotal").map(s -> s.quantile(0.9)).orElse(Double.NaN);
    }

    /** This JVM's mean share of the machine's CPU (user + system); NaN when not recorded. */
    static double jvmShare(Evidence ev) {
        return ev.stats("cpu", "jvmUser").map(ColumnStats::mean).orElse(Double.NaN)
                + ev.stats("cpu", "jvmSystem").map(ColumnStats::mean).orElse(0.0);
    }

    private static boolean othersDominate(double busy, double jvm) {
        return Double.isFinite(jvm) && jvm < OTHERS_SHARE * busy;
    }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> machine = ev.stats("cpu", "machineTotal");
        if (machine.isEmpty()) return notAssessed("no series cpu#machineTotal");
        double busy = machine.get().quantile(0.9);
        double jvm = jvmShare(ev);
        String cpus = Double.isFinite(ev.cpus()) ? " of " + Fmt.num(ev.cpus()) + " CPU(s)" : "";
        Numbers n = new Numbers();
        String who = Double.isFinite(jvm) ? ", this JVM " + n.tag(Fmt.pct(jvm), "series/cpu#jvmUser") : "";
        Finding.Builder b = finding(Severity.OK).evidence("series/cpu#machineTotal");
        String p90 = n.tag(Fmt.pct(busy), "series/cpu#machineTotal") + " at p90" + cpus + who;
        if (busy < WARN) {
            return b.summary("machine CPU " + n.tag(Fmt.pct(machine.get().mean()), "series/cpu#machineTotal") + " mean, " + p90 + ".")
                    .numbers(n.refs()).build();
        }
        String[] hot = hottestFrame(ev);
        // A machine busy with something else (a load generator on the same host) is not this service's fault.
        if (othersDominate(busy, jvm)) {
            return b.severity(Severity.INFO).summary("machine CPU " + p90 + ": mostly other processes, not this JVM.")
                    .numbers(n.refs()).build();
        }
        if ("closed".equals(LoadJson.model(ev.caseFile().dir()))) {
            // A closed-model load sends the next request as soon as one returns: it drives any service
            // to its capacity, so a busy CPU is the test working. What the CPU is spent on is what matters.
            return b.severity(Severity.INFO).culprit(hot == null ? null : hot[0])
                    .summary("machine CPU " + p90 + " under a closed-model load, which runs"
                            + " the service at its capacity" + (hot == null ? "" : "; hottest frame " + hot[0] + " (" + n.tag(hot[1], hot[2]) + " self)")
                            + ".").numbers(n.refs()).build();
        }
        // A statement an embedded database runs in this JVM is CPU of its own, not a call the busy cores slowed.
        if (!(InProcessDatabase.cpuShare(ev, null) >= EXPLAINS_SHARE)) b.explains("slow-calls");
        return b.severity(busy >= CRITICAL ? Severity.CRITICAL : Severity.WARN)
                .score(Double.isFinite(jvm) ? jvm : machine.get().mean())
                .culprit(hot == null ? null : hot[0])
                .summary("machine CPU " + p90 + (hot == null ? "" : "; hottest frame " + hot[0] + " (" + n.tag(hot[1], hot[2]) + " self)") + ".")
                .numbers(n.refs())
                .explains("tail-latency").explains("request-errors").explains("thread-oversubscription")
                .explanation("With every core busy, threads queue for CPU: all work, including time measured around"
                        + " remote calls, stretches. Find what burns the CPU before tuning anything else.")
                .fix("Remove the CPU consumer the chain names; if none, profile: the flame graph's widest frames.")
                .confirm(ev.confirm("profiler start --event cpu") + ", then \"profiler stop --format collapsed\"")
                .build();
    }

    /** The hottest frame by self share: its name, its share, and the ref of its row. */
    private static String[] hottestFrame(Evidence ev) {
        Optional<Table> hs = ev.rows("cpu-hotspots");
        if (hs.isEmpty()) return null;
        Table t = hs.get();
        int best = 0;
        for (int i = 1; i < t.rows().size(); i++) if (t.number(i, "selfShare") > t.number(best, "selfShare")) best = i;
        return new String[] {t.text(best, "frame"), Fmt.pct(t.number(best, "selfShare")), "tables/cpu-hotspots#" + best};
    }
}
