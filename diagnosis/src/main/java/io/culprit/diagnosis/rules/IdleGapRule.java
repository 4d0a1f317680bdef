package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Locale;
import java.util.Optional;

/**
 * Latency that depends on how long the service was idle before the request: the signature of a
 * cache with a time-to-live that expires between requests and is refilled on the request path
 * (CASES.md #1: after > 5 s idle a request re-read JAR entries, 73 ms vs 3 ms). The table
 * {@code idle-gap} (latency by gap bucket) dates the TTL; {@code routes.idleGapCorrelation}
 * alone says only that the dependency exists.
 */
public final class IdleGapRule implements Rule {
    /** A bucket three times slower than back-to-back requests is a different code path, not noise. */
    static final double JUMP_FACTOR = 3;
    /**
     * ...and at least 20 ms slower: a first request after seconds of idleness on a shared machine pays
     * cold caches and a scheduler wake-up (CI: the idle-resource-scan fixed twin, 16.5 ms against 4.9 ms,
     * where the faulty twin's refill costs 54 ms more).
     */
    static final double JUMP_MIN_MS = 20;
    /** Ten times slower: the refill is the request. */
    static final double JUMP_CRITICAL = 10;
    /** Correlation of latency with the preceding gap worth reporting without buckets. */
    static final double CORRELATION_WARN = 0.5;
    /**
     * Major page faults per request after the gap that mean the JVM's own memory was read back from
     * disk: the host reclaimed it while the service was idle. A warm request faults none; session
     * 50's machine (DAMON pageout, no swap) read hundreds per request after ≥ 2 s idle.
     */
    static final double REFAULTS_MIN = 20;
    /** ...and this many times the back-to-back requests' (plus one, for a base of zero). */
    static final double REFAULTS_FACTOR = 10;

    @Override public String id() { return "idle-gap-latency"; }
    @Override public String title() { return "Latency depends on the idle time before a request"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> gaps = ev.rows("idle-gap");
        double r = ev.rows("routes").map(IdleGapRule::maxCorrelation).orElse(Double.NaN);
        if (gaps.isPresent() && gaps.get().rows().size() >= 2) return fromBuckets(ev, gaps.get(), r);
        if (!Double.isFinite(r)) return notAssessed("no table idle-gap and no routes#idleGapCorrelation");
        Finding.Builder b = finding(r >= CORRELATION_WARN ? Severity.WARN : Severity.OK).evidence("tables/routes");
        String rText = String.format(Locale.ROOT, "%.2f", r);
        b.number(rText, "tables/routes");
        String what = "latency correlates with the idle gap before each request at r = " + rText;
        if (r < CORRELATION_WARN) return b.summary(what + ": no idle-time dependency.").build();
        return withCause(ev, refill(ev), b.score(r * r * 0.5), what + " (no gap buckets to date the expiry)", "");
    }

    private Finding fromBuckets(Evidence ev, Table t, double r) {
        double base = t.number(0, "p50Ms");
        int jump = -1;
        for (int i = 1; i < t.rows().size(); i++) {
            double p = t.number(i, "p50Ms");
            if (p >= JUMP_FACTOR * base && p - base >= JUMP_MIN_MS) { jump = i; break; }
        }
        int last = t.rows().size() - 1;
        Finding.Builder b = finding(Severity.OK).evidence("tables/idle-gap");
        Numbers n = new Numbers();
        String first = "tables/idle-gap#0";
        if (jump < 0) {
            String lastRow = "tables/idle-gap#" + last;
            return b.summary("p50 " + n.tag(Fmt.ms(base), first) + " back-to-back vs " + n.tag(Fmt.ms(t.number(last, "p50Ms")), lastRow)
                    + " after ≥ " + n.tag(Fmt.ms(t.number(last, "gapMs")), lastRow) + " idle: no idle-time dependency.")
                    .numbers(n.refs()).build();
        }
        double extra = 0, total = 0, affected = 0, count = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double c = t.number(i, "count"), p = t.number(i, "p50Ms");
            total += c * p;
            count += c;
            if (i >= jump) { extra += c * (p - base); affected += c; }
        }
        double p = t.number(jump, "p50Ms");
        double factor = p / base;
        b.severity(factor >= JUMP_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(total > 0 ? extra / total : 0);
        String row = "tables/idle-gap#" + jump;
        String head = "requests after ≥ " + n.tag(Fmt.ms(t.number(jump, "gapMs")), row) + " idle take " + n.tag(Fmt.ms(p), row)
                        + " (p50) vs " + n.tag(Fmt.ms(base), first) + " back-to-back (" + n.tag(Fmt.times(factor), row) + ", "
                        + n.tag(Fmt.pct(affected / count), "tables/idle-gap") + " of requests"
                        + (Double.isFinite(r) ? ", r = " + n.tag(String.format(Locale.ROOT, "%.2f", r), "tables/routes") : "") + ")";
        String ttl = ": something with a ~" + n.tag(Fmt.ms(t.number(jump, "gapMs")), row) + " time-to-live expires while idle";
        Refill refill = refill(ev);
        if (!refaulted(t, jump)) return withCause(ev, refill, b.numbers(n.refs()), head + ttl, "");
        String reclaim = ev.info().target().getOrDefault("hostReclaim", "");
        String faults = n.tag(Fmt.num(t.number(jump, "majorFaults")), row) + " major page faults per request after the gap vs "
                + n.tag(Fmt.num(t.number(0, "majorFaults")), first) + " back-to-back" + (reclaim.isEmpty() ? "" : " (" + reclaim + ")");
        b.numbers(n.refs());
        // Work the code redoes after the gap stays the cause, the host's share beside it.
        if (refill != null) return withCause(ev, refill, b, head + ttl, "; the host also reclaims the idle JVM's memory: " + faults);
        return b.summary(head + ": each reads the JVM's own memory back from disk, " + faults
                        + ": the host reclaimed it while the service was idle.")
                .explains("outside-handler").explains("tail-latency")
                .explanation("After an idle gap the request pays for page faults, not for work of its own: the kernel"
                        + " dropped the idle process's pages (proactive reclaim, memory pressure in its cgroup, or swap)"
                        + " and reads the JVM's code, class data and heap back on first touch. No frame of the service"
                        + " is to blame; under steady load it hides.")
                .fix("Exempt the service from the host's reclaim: protect its memory (cgroup v2 memory.min or memory.low),"
                        + " take it out of the proactive-reclaim scheme" + (reclaim.isEmpty() ? "" : " (" + reclaim + ")")
                        + " or give it no swap, or keep it warm with a periodic request; -XX:+AlwaysPreTouch does not pin pages.")
                .confirm("read majflt (field 12) of /proc/" + ev.pid() + "/stat before and after a request sent after"
                        + " 5 s idle: it jumps by hundreds")
                .build();
    }

    /** Major faults per request after the gap that mean the JVM's own memory was read back from disk. */
    private static boolean refaulted(Table t, int jump) {
        double after = t.number(jump, "majorFaults"), base = t.number(0, "majorFaults");
        return after >= REFAULTS_MIN && after >= REFAULTS_FACTOR * (base + 1);
    }

    /**
     * What the code redoes after expiry, as named by the evidence: the top JAR scan or resource
     * lookup, else the caller of lookup frames in the cpu profile. Null when neither is there.
     */
    private static Refill refill(Evidence ev) {
        Optional<Table> cl = ev.rows("classloading");
        if (cl.isPresent()) {
            Table t = cl.get();
            for (int i = 0; i < t.rows().size(); i++) {
                String kind = t.text(i, "kind"), caller = t.text(i, "caller");
                if (("jar-scan".equals(kind) || "resource-lookup".equals(kind)) && caller != null) {
                    return new Refill(kind + " in " + caller, caller, Double.NaN);
                }
            }
        }
        String caller = ev.cpuCaller(Frames::isLookup);
        double share = ev.cpuShare(Frames::isLookup);
        return caller != null && share > 0 ? new Refill("lookups (" + Fmt.pct(share) + " of CPU samples) from " + caller, caller, share) : null;
    }

    /** {@code cpuShare}: the lookups' share of CPU samples when the profile named the refill; NaN when the classloading table did. */
    private record Refill(String text, String caller, double cpuShare) { }

    // The culprit is the refill's caller; `also` adds what else the request pays after the gap.
    private Finding withCause(Evidence ev, Refill refill, Finding.Builder b, String summary, String also) {
        if (refill != null) {
            summary += " and is refilled by " + refill.text();
            if (Double.isNaN(refill.cpuShare())) b.explains("hot-path-classloading");
            else b.number(Fmt.pct(refill.cpuShare()), ev.cpuRef());
        }
        return b.summary(summary + also + ".").culprit(refill == null ? null : refill.caller())
                .explains("outside-handler").explains("tail-latency")
                .explanation("A cache with a time-to-live that expires between requests makes the first request after"
                        + " a pause pay for the refill: the latency depends on traffic, not on the request."
                        + " Under steady load it hides; on quiet services or at low rates it is every request.")
                .fix("Lengthen the cache TTL or make it size-bounded instead of time-bounded, refill it in the"
                        + " background, or remove the per-request check (upgrade the component if it is a known issue).")
                .confirm("culprit load URL --rate 0.1/s --duration 60s vs --rate 10/s (latency falls as the gap shrinks); "
                        + ev.confirm("trace *Processor service '#cost > 20'"))
                .build();
    }

    private static double maxCorrelation(Table t) {
        double best = Double.NaN;
        for (int i = 0; i < t.rows().size(); i++) {
            double r = t.number(i, "idleGapCorrelation");
            if (Double.isFinite(r) && !(best >= r)) best = r;
        }
        return best;
    }
}
