package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.Optional;

/**
 * Tail latency far above the typical request. A symptom: other rules explain it; when none does,
 * it is reported as the unexplained top finding so the user still sees it.
 */
public final class TailLatencyRule implements Rule {
    /** A P99 ten times the median request means a minority of requests pays for something the rest do not. */
    static final double TAIL_RATIO = 10;
    /** Under 100 ms even a large ratio is rarely a user-visible problem. */
    static final double TAIL_MIN_MS = 100;
    /** A P99 of a second or more is an outage for an interactive API. */
    static final double TAIL_CRITICAL_MS = 1000;
    /**
     * The tail judged is the P99 that a quarter of the windows reach: a recurring tail, not one
     * window's stall (a JIT burst or a neighbour's CPU spike on a shared machine).
     */
    static final double RECURRING_QUANTILE = 0.75;

    @Override public String id() { return "tail-latency"; }
    @Override public String title() { return "Tail latency far above the typical request"; }

    @Override public boolean symptom() { return true; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> p99 = ev.stats("requests", "p99Ms");
        Optional<ColumnStats> p50 = ev.stats("requests", "p50Ms");
        if (p99.isEmpty() || p50.isEmpty()) return notAssessed("needs series requests#p99Ms and requests#p50Ms");
        double worst = p99.get().max();
        double recurring = p99.get().quantile(RECURRING_QUANTILE);
        double typical = p50.get().median();
        double ratio = recurring / Math.max(typical, 0.001);
        Numbers n = new Numbers();
        String p99Ref = "series/requests#p99Ms", p50Ref = "series/requests#p50Ms";
        String rps = ev.stats("requests", "rps").map(s -> " at " + n.tag(Fmt.num(s.firstThird()), "series/requests#rps") + " → "
                + n.tag(Fmt.num(s.lastThird()), "series/requests#rps") + " rps").orElse("");
        String what = "P99 " + n.tag(Fmt.ms(p99.get().firstThird()), p99Ref) + " → " + n.tag(Fmt.ms(p99.get().lastThird()), p99Ref)
                + " (worst " + n.tag(Fmt.ms(worst), p99Ref) + "), P50 " + n.tag(Fmt.ms(p50.get().firstThird()), p50Ref) + " → "
                + n.tag(Fmt.ms(p50.get().lastThird()), p50Ref) + rps;
        Finding.Builder b = finding(Severity.OK).evidence("series/requests#p99Ms");
        if (ratio >= TAIL_RATIO && recurring >= TAIL_MIN_MS && p99.get().lastThird() < TAIL_MIN_MS) {
            // Gone by the end of the run: the service was still warming up (JIT), not a steady-state tail.
            return b.summary(what + ": the tail fades to " + n.tag(Fmt.ms(p99.get().lastThird()), p99Ref) + " in the last third of the run"
                    + " (warm-up, not a steady tail).").numbers(n.refs()).build();
        }
        if (ratio < TAIL_RATIO || recurring < TAIL_MIN_MS) {
            return b.summary(what + ": P99 in a quarter of the windows reaches " + n.tag(Fmt.ms(recurring), p99Ref) + ", "
                    + n.tag(Fmt.times(ratio), p99Ref) + " the median" + (recurring < TAIL_MIN_MS ? " and under " + Fmt.ms(TAIL_MIN_MS) : "") + ".")
                    .numbers(n.refs()).build();
        }
        if (CpuSaturationRule.busyWithOthers(ev)) {
            // This JVM waited for cores that other processes held (a load generator on the same host, a
            // neighbour): the tail measures the machine, and no finding about this service can explain it.
            return b.severity(Severity.INFO).summary(what + ": P99 in a quarter of the windows reaches " + n.tag(Fmt.ms(recurring), p99Ref)
                    + ", " + n.tag(Fmt.times(ratio), p99Ref) + " the median, while other processes saturated the CPU.")
                    .numbers(n.refs()).build();
        }
        Severity sev = recurring >= TAIL_CRITICAL_MS ? Severity.CRITICAL : Severity.WARN;
        return b.severity(sev).score(0.2)
                .summary(what + ": P99 in a quarter of the windows reaches " + n.tag(Fmt.ms(recurring), p99Ref) + ", "
                        + n.tag(Fmt.times(ratio), p99Ref) + " the median request.")
                .numbers(n.refs())
                .explanation("A tail this far from the median means some requests wait for something the others do"
                        + " not: a pause, a queue, a lock, an expired cache. The findings it is chained to say which.")
                .fix("Fix the cause this is chained to; if none is, collect more evidence (profiler --event wall).")
                .confirm(ev.confirm("profiler start --event wall") + ", then \"profiler stop --format collapsed\"")
                .build();
    }
}
