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
 * Threads that wait to allocate while a concurrent collector catches up: ZGC (and Generational
 * ZGC) pauses the application for well under a millisecond, so the pause time gc-pressure weighs
 * says nothing, but a thread that allocates when the heap has no free page left stalls until a
 * cycle frees one ({@code jdk.ZAllocationStall}, series {@code gc} columns {@code stallCount} and
 * {@code stallMs}). A service outside the lab on ZGC with a 96 MB heap served a quarter of what
 * it served with 512 MB, P99 70 ms against 12, and read "no root cause found": 0.1 % of wall time
 * paused.
 */
public final class AllocationStallRule implements Rule {
    /** A tenth of request time waiting to allocate is worth a change; a third sets the service's speed. */
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;

    @Override public String id() { return "allocation-stalls"; }
    @Override public String title() { return "Threads stall allocating while the collector catches up"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> stalls = ev.stats("gc", "stallMs");
        if (stalls.isEmpty()) return notAssessed("no series gc#stallMs (recorded from ZGC's allocation stalls)");
        double stallMs = stalls.get().sum();
        double count = ev.stats("gc", "stallCount").map(ColumnStats::sum).orElse(Double.NaN);
        double requestMs = ev.requestTimeMs();
        double share = requestMs > 0 ? Math.min(1, stallMs / requestMs) : Double.NaN;
        Numbers n = new Numbers();
        String ref = "series/gc#stallMs";
        String what = n.tag(Fmt.num(count), "series/gc#stallCount") + " allocation stalls, " + n.tag(Fmt.ms(stallMs), ref)
                + " of threads waiting to allocate" + (Double.isFinite(share) ? " (" + n.tag(Fmt.pct(share), ref) + " of request time)" : "");
        Finding.Builder b = finding(Severity.OK).evidence(ref);
        Severity sev = !Double.isFinite(share) ? Severity.OK
                : share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.OK;
        if (sev == Severity.OK) return b.summary(what + ".").numbers(n.refs()).build();
        double seconds = ev.observedSeconds();
        double cycles = ev.stats("gc", "pauseCount").map(ColumnStats::sum).orElse(Double.NaN);
        double concurrent = ev.stats("gc", "concurrentMs").map(ColumnStats::sum).orElse(Double.NaN);
        String busy = seconds > 0 && Double.isFinite(cycles) && Double.isFinite(concurrent)
                ? "; the collector ran " + n.tag(Fmt.num(Math.round(cycles / seconds)), "series/gc#pauseCount") + " cycles a second, its"
                + " concurrent phases " + n.tag(Fmt.pct(Math.min(1, concurrent / (seconds * 1000))), "series/gc#concurrentMs") + " of the time"
                : "";
        String heap = ev.stats("heap", "maxMb").map(m -> "; the heap's maximum is " + n.tag(Fmt.num(Math.round(m.max())) + " MB", "series/heap#maxMb"))
                .orElse("");
        return b.severity(sev).score(share).culprit("the heap's size for a concurrent collector")
                .summary(what + busy + heap + ": requests wait for the collector to free memory as fast as they allocate it.")
                .numbers(n.refs())
                .explanation("A concurrent collector (ZGC) reclaims memory while the application runs and stops it for"
                        + " well under a millisecond, so its pauses cost nothing; but when requests allocate faster than a"
                        + " cycle frees pages, a thread that needs a page waits in the allocation until one is freed. Each"
                        + " waiting thread is a request stopped in the middle, and with a heap barely larger than the live"
                        + " set the collector runs back to back and the waits are the service's latency.")
                .fix("Give the collector headroom: -Xmx two to three times the live set plus what the service allocates"
                        + " during one cycle (on JDK 21, Generational ZGC, -XX:+ZGenerational, needs less), keep -Xms equal to"
                        + " -Xmx, and if the CPU has room let it collect with more threads (-XX:ConcGCThreads); then allocate"
                        + " less per request.")
                .confirm(ev.confirm("dashboard -n 5 -i 2000") + " (heap used against its maximum, GC per interval)")
                .explains("tail-latency").explains("thread-oversubscription").explains("cpu-saturation").explains("pool-starvation")
                .explains("gc-pressure").explains("container-queue")
                .build();
    }
}
