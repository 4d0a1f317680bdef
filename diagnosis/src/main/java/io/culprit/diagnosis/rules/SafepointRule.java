package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.Optional;

/**
 * Stop-the-world time that is not GC: safepoints for deoptimization, class redefinition,
 * thread dumps, biased-lock revocation, or a long time-to-safepoint (a counted loop that does
 * not poll). Every thread stops, like a GC pause, but GC tuning will not help.
 */
public final class SafepointRule implements Rule {
    /** 2 % of wall time stopped outside GC is already more than a healthy JVM spends. */
    static final double SHARE_WARN = 0.02;
    static final double SHARE_CRITICAL = 0.1;

    @Override public String id() { return "safepoint-pauses"; }
    @Override public String title() { return "Stop-the-world pauses outside GC"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> sp = ev.stats("safepoints", "totalMs");
        if (sp.isEmpty()) return notAssessed("no series safepoints#totalMs");
        long windowMs = ev.series("safepoints").orElseThrow().intervalMs();
        double observedMs = sp.get().count() * (double) windowMs;
        // GC pauses are safepoints too: subtract them when known, over the same span.
        double gcMs = ev.stats("gc", "pauseSumMs").map(ColumnStats::sum).orElse(0.0);
        double nonGc = Math.max(0, sp.get().sum() - gcMs);
        double share = nonGc / observedMs;
        Numbers n = new Numbers();
        String ref = "series/safepoints#totalMs";
        String what = "safepoints stopped the JVM " + n.tag(Fmt.ms(sp.get().sum()), ref) + " in " + n.tag(Fmt.ms(observedMs), ref)
                + (gcMs > 0 ? ", " + n.tag(Fmt.ms(nonGc), ref) + " of it outside GC" : "") + " (" + n.tag(Fmt.pct(share), ref) + " of wall time)";
        Finding.Builder b = finding(share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.OK)
                .evidence("series/safepoints#totalMs");
        b.numbers(n.refs());
        if (share < SHARE_WARN) return b.summary(what + ".").build();
        if (CpuSaturationRule.busyWithOthers(ev)) {
            // Threads that wait for a core reach the safepoint late: the stop measures the machine, not this JVM.
            return b.severity(Severity.INFO).summary(what + ", while other processes saturated the CPU (time-to-safepoint"
                    + " stretches when threads wait for a core).").build();
        }
        Numbers nOp = new Numbers();
        Optional<VmOperation> op = VmOperation.read(ev, nOp);
        if (op.isPresent()) b.numbers(nOp.refs()).evidence("tables/vm-operations");
        return b.score(share).culprit(op.map(o -> o.culprit).orElse("non-GC safepoints"))
                .summary(what + op.map(o -> "; " + o.summary).orElse("") + ".")
                .explanation("Non-GC safepoints stop every thread: deoptimization storms, class retransformation,"
                        + " frequent thread dumps, or a loop that reaches the safepoint late (time-to-safepoint).")
                .fix(op.map(o -> o.fix).orElse("Find the operation with -Xlog:safepoint (JDK 17+) and remove its trigger (agents"
                        + " retransforming, periodic thread dumps, deoptimization from megamorphic or class-hierarchy changes)."))
                .confirm(op.isPresent() && !op.get().culprit.startsWith("VM operation ")
                        ? ev.confirm("stack " + Frames.classAndMethod(op.get().culprit) + " -n 5")
                        : ev.confirm("jfr start") + ", then read jdk.ExecuteVMOperation by operation")
                .explains("tail-latency").explains("request-errors").explains("pool-starvation")
                .build();
    }
}
