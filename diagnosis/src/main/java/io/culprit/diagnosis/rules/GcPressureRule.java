package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.Stats;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * GC pressure, and whether the pauses are what the latency and the pool waits are made of. A
 * small pause share can still starve a pool: threads frozen mid-pause hold their connections
 * (CASES.md #2: 2 % of time paused, P99 48 ms → 1 s). So the rule looks at pressure (pause
 * share, pauses growing longer rather than more frequent, the heap's free ratio against the
 * collector's MinHeapFreeRatio, heap resizing, allocation per request) and at impact (pauses
 * moving with pool pending threads or P99).
 */
public final class GcPressureRule implements Rule {
    /** G1's default GCTimeRatio=12 budgets 1/13 ≈ 8 % of time for GC; 5 % is already a visible throughput cost. */
    static final double PAUSE_SHARE_WARN = 0.05;
    /** Beyond 15 % paused the service spends a sixth of its life stopped. */
    static final double PAUSE_SHARE_CRITICAL = 0.15;
    /** Pauses tracking the symptom only matter if they are a measurable slice of some window. */
    static final double IMPACT_WINDOW_SHARE = 0.01;
    /** r ≥ 0.7: pauses explain about half the variance of the symptom or more. */
    static final double IMPACT_CORRELATION = 0.7;
    /**
     * One window with a pause correlates with whatever spiked in it: a coincidence, not pauses
     * tracking a symptom (CI: the gc-pool-starvation fixed twin's only young GC, 70 ms, landed in
     * the window of its worst P99, r = 0.73 over five windows).
     */
    static final int IMPACT_MIN_PAUSED_WINDOWS = 2;
    /** Pause time growing twice as fast as pause count: pauses get longer, the heap is too tight. */
    static final double GROWTH_OVER_COUNT = 2.0;
    /** Pause time must at least double between the first and last third of the run to count as growth. */
    static final double SUM_GROWTH_MIN = 2.0;
    /** HotSpot's default -XX:MinHeapFreeRatio for G1 and Serial: below it the heap wants to grow. */
    static final double DEFAULT_MIN_HEAP_FREE = 40;
    /** Committed heap moving by 5 % of its range during the run counts as resizing. */
    static final double RESIZE_SHARE = 0.05;
    /** Fewer pool waiters than this are no queue (see {@link #steadyQueue}). */
    static final double QUEUE_MIN_WAITERS = 2;
    /** A heap committed to 95 % of its maximum has no room left to grow into. */
    static final double COMMITTED_AT_MAX = 0.95;
    /** Seven tenths of the maximum surviving collection leaves too little room to allocate in. */
    static final double LIVE_SHARE_AT_MAX = 0.7;
    /** An allocation site worth naming carries a fifth of the sampled bytes. */
    static final double MIN_SITE_SHARE = 0.2;

    @Override public String id() { return "gc-pressure"; }
    @Override public String title() { return "GC pressure stalls request threads"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> pause = ev.stats("gc", "pauseSumMs");
        if (pause.isEmpty()) return notAssessed("no series gc#pauseSumMs");
        long windowMs = ev.series("gc").orElseThrow().intervalMs();
        // Over the time observed: the windows are aligned to the clock, so the first and last are
        // partial, and a last window of a few ms with no pause would dilute the share by a tenth.
        double observedMs = ev.observedSeconds() * 1000;
        double share = pause.get().sum() / (observedMs > 0 ? observedMs : pause.get().count() * (double) windowMs);
        double worstShare = pause.get().max() / windowMs;
        Finding.Builder b = finding(Severity.OK).evidence("series/gc#pauseSumMs");
        List<String> pressure = new ArrayList<>();
        // Tags for the pressure lines go to their own Numbers: the lines are only printed when the finding is a problem.
        Numbers n = new Numbers();
        Numbers np = new Numbers();
        String pauses = "series/gc#pauseSumMs", counts = "series/gc#pauseCount";

        if (share >= PAUSE_SHARE_WARN) pressure.add("GC pauses took " + np.tag(Fmt.pct(share), pauses) + " of wall time");
        double sumGrowth = Stats.ratio(pause.get().lastThird(), pause.get().firstThird());
        double countGrowth = ev.stats("gc", "pauseCount").map(s -> Stats.ratio(s.lastThird(), s.firstThird())).orElse(Double.NaN);
        if (sumGrowth >= SUM_GROWTH_MIN && (!Double.isFinite(countGrowth) || sumGrowth >= GROWTH_OVER_COUNT * countGrowth)) {
            String countText = ev.stats("gc", "pauseCount").map(s -> " while their count grew " + np.tag(Fmt.times(countGrowth), counts)
                    + " (" + np.tag(Fmt.num(s.firstThird()), counts) + " → " + np.tag(Fmt.num(s.lastThird()), counts) + ")").orElse("");
            pressure.add("GC pause time per " + Fmt.ms(windowMs) + " window grew " + np.tag(Fmt.times(sumGrowth), pauses) + " ("
                    + np.tag(Fmt.ms(pause.get().firstThird()), pauses) + " → " + np.tag(Fmt.ms(pause.get().lastThird()), pauses) + ")"
                    + countText);
        }
        String collector = collector(ev);
        double minFree = minHeapFree(ev, collector);
        double free = freeRatio(ev);
        if (Double.isFinite(free) && Double.isFinite(minFree) && free * 100 < minFree) {
            boolean configured = ev.rows("heap-config").map(t -> Double.isFinite(t.number(0, "minHeapFreeRatio"))).orElse(false);
            String minText = Fmt.num(minFree) + " %";
            if (configured) np.tag(minText, "tables/heap-config#0");
            pressure.add("heap free after GC " + np.tag(Fmt.pct(free), "series/heap#usedAfterGcMb") + " < "
                    + (collector.isEmpty() ? "" : collector + " ") + "MinHeapFreeRatio " + minText);
            b.evidence("series/heap#usedAfterGcMb");
        }
        resizing(ev, np).ifPresent(pressure::add);
        Optional<GcTrigger> trigger = GcTrigger.read(ev, np).or(() -> Finalizers.read(ev, np)).or(() -> SoftValues.read(ev, free, np))
                .or(() -> YoungGenFlag.read(ev, collector, np))
                .or(() -> GcTrigger.resultSets(ev, np, kbPerRequest(ev))).or(() -> GrowingCopies.read(ev, np, kbPerRequest(ev)));
        // What asked for the collections comes first: it is the cause the other lines follow from.
        trigger.ifPresent(tr -> pressure.add(0, tr.summary));

        Impact impact = impact(ev);
        // Windows whose pauses are a measurable slice of them: a remark of a few ms beside the one real
        // pause is not a second pause to correlate (CI: the same twin, a 97 ms young GC and an 8 ms remark).
        long pausedWindows = ev.column("gc", "pauseSumMs")
                .map(v -> Arrays.stream(v).filter(x -> x / windowMs >= IMPACT_WINDOW_SHARE).count()).orElse(0L);
        boolean single = pausedWindows < IMPACT_MIN_PAUSED_WINDOWS;
        boolean impacts = impact.r >= IMPACT_CORRELATION && worstShare >= IMPACT_WINDOW_SHARE && !single;
        Numbers nAlloc = new Numbers();
        String perRequest = allocationPerRequest(ev, nAlloc);
        String site = topAllocationSite(ev, nAlloc);
        if (!site.isEmpty()) perRequest = perRequest.isEmpty() ? site : perRequest + ", " + site;

        Severity sev = share >= PAUSE_SHARE_CRITICAL || (impacts && !pressure.isEmpty()) ? Severity.CRITICAL
                : share >= PAUSE_SHARE_WARN || impacts ? Severity.WARN
                : !pressure.isEmpty() ? Severity.INFO : Severity.OK;
        b.severity(sev).score(impacts ? impact.r * impact.r : share);
        if (sev == Severity.OK) {
            return b.summary("GC paused " + n.tag(Fmt.pct(share), pauses) + " of wall time (worst window "
                    + n.tag(Fmt.pct(worstShare), pauses) + ")"
                    + (!Double.isFinite(impact.r) ? "" : single && impact.r >= IMPACT_CORRELATION
                            ? ", in one window only: too few pauses to say they track " + impact.what(n)
                            : ", not tracking " + impact.what(n))
                    + (Double.isFinite(free) ? "; heap free after GC " + n.tag(Fmt.pct(free), "series/heap#usedAfterGcMb") : "") + ".")
                    .numbers(n.refs()).build();
        }
        String head = pressure.isEmpty() ? "GC paused " + n.tag(Fmt.pct(share), pauses) + " of wall time" : String.join("; ", pressure);
        if (!pressure.isEmpty()) b.numbers(np.refs());
        String tail = impacts ? ", and the pauses track " + impact.what(n) : "";
        b.numbers(n.refs());
        if (!perRequest.isEmpty()) b.numbers(nAlloc.refs());
        b.summary(head + tail + (perRequest.isEmpty() ? "" : "; " + perRequest) + ".");
        if (!site.isEmpty()) b.evidence("tables/alloc-sites#0");
        if (impacts) {
            b.evidence("series/" + impact.ref).explains("pool-starvation").explains("pool-size").explains("tail-latency")
                    .explains("request-errors")
                    .explains("thread-oversubscription");
        }
        if (share >= PAUSE_SHARE_WARN) b.explains("cpu-saturation");
        if (trigger.isPresent()) {
            return b.culprit(trigger.get().culprit)
                    .explanation(trigger.get().explanation + " Each pause freezes every request thread, including those"
                            + " holding pooled connections or locks.")
                    .fix(trigger.get().fix)
                    .confirm(ev.confirm("dashboard -n 5 -i 2000") + " (GC per interval)")
                    .build();
        }
        double liveShare = liveShareAtMax(ev);
        String fix = liveShare >= LIVE_SHARE_AT_MAX
                // The heap already spans -Xmx: pinning -Xms changes nothing, only room for the live set does.
                ? "The heap is at its maximum and what survives collection fills " + Fmt.pct(liveShare) + " of it, so"
                        + " -Xms equal to -Xmx would change nothing: raise -Xmx to two to three times the live set, or keep"
                        + " less" + keptSite(ev) + ". If the heap after GC keeps climbing, that is a leak (heap-leak)."
                : "Give the heap room and fix its size: -Xms equal to -Xmx (e.g. -Xms2g -Xmx2g) so it neither"
                        + " runs below MinHeapFreeRatio nor resizes under load; then cut allocation per request.";
        return b.culprit(collector.isEmpty() ? "heap sizing" : collector + " heap sizing")
                .explanation("Each pause freezes every request thread, including those holding pooled connections or"
                        + " locks; others queue behind them, so a few percent of paused time becomes seconds of tail"
                        + " latency. A heap that runs below the collector's free-ratio threshold or resizes under"
                        + " load collects more often and pauses longer.")
                .fix(fix)
                .confirm(ev.confirm("dashboard -n 5 -i 2000") + " (heap used/committed and GC per interval)")
                .build();
    }

    /**
     * The heap after GC as a share of the maximum heap, when the heap is committed to its maximum
     * (in the last third of the run); NaN when it still has room to grow. A service that keeps 240 MB
     * in a 300 MB heap was told "-Xms equal to -Xmx" for a heap that already spanned -Xmx.
     */
    private static double liveShareAtMax(Evidence ev) {
        double max = ev.stats("heap", "maxMb").map(ColumnStats::max).orElse(Double.NaN);
        double committed = ev.stats("heap", "committedMb").map(ColumnStats::lastThird).orElse(Double.NaN);
        double live = ev.stats("heap", "usedAfterGcMb").map(ColumnStats::lastThird).orElse(Double.NaN);
        return max > 0 && committed >= COMMITTED_AT_MAX * max ? live / max : Double.NaN;
    }

    /** ", such as the byte[] allocated at X" when JFR's leak profiler saw one site make most of what survived. */
    private static String keptSite(Evidence ev) {
        HeapLeakRule.Site kept = HeapLeakRule.site(ev, new Numbers());
        return kept == null || kept.site == null ? "" : ", such as the " + kept.what + " (" + Fmt.pct(kept.share) + " of the sampled survivors)";
    }

    private static String r(double r) {
        return String.format(Locale.ROOT, "%.2f", r);
    }

    private static final class Impact {
        final double r;
        final String ref;
        private final double rPending, rP99;
        private final boolean both;

        Impact(double r, String ref, double rPending, double rP99, boolean both) {
            this.r = r;
            this.ref = ref;
            this.rPending = rPending;
            this.rP99 = rP99;
            this.both = both;
        }

        /** What the pauses track, each r tagged with the symptom's series; built only where it is printed. */
        String what(Numbers n) {
            boolean pendingFirst = ref.startsWith("pools");
            String first = pendingFirst ? pending(n) : p99(n);
            return both ? first + " and " + (pendingFirst ? p99(n) : pending(n)) : first;
        }

        private String pending(Numbers n) {
            return "the pool's pending threads (r = " + n.tag(r(rPending), "series/pools#dbPending") + ")";
        }

        private String p99(Numbers n) {
            return "P99 latency (r = " + n.tag(r(rP99), "series/requests#p99Ms") + ")";
        }
    }

    // Only symptoms that actually moved, and by a user-visible amount, are worth correlating:
    // noise correlates with noise, and a 20 → 60 ms P99 wobble is not what a verdict is about.
    // Every symptom the pauses track is named, with its r, strongest first.
    private static Impact impact(Evidence ev) {
        double rPending = ev.stats("pools", "dbPending").map(GcPressureRule::steadyQueue).orElse(false)
                ? ev.correlation("gc", "pauseSumMs", "pools", "dbPending") : Double.NaN;
        double rP99 = ev.stats("requests", "p99Ms").map(s -> s.max() >= 3 * s.min() && s.max() >= TailLatencyRule.TAIL_MIN_MS).orElse(false)
                ? ev.correlation("gc", "pauseSumMs", "requests", "p99Ms") : Double.NaN;
        if (!Double.isFinite(rPending) && !Double.isFinite(rP99)) return new Impact(Double.NaN, "", rPending, rP99, false);
        // Either may be NaN (no pool, no tail): the other leads then.
        boolean pendingFirst = !Double.isFinite(rP99) || rPending >= rP99;
        double best = pendingFirst ? rPending : rP99;
        double other = pendingFirst ? rP99 : rPending;
        return new Impact(best, pendingFirst ? "pools#dbPending" : "requests#p99Ms", rPending, rP99, other >= IMPACT_CORRELATION);
    }

    /**
     * Pool waiters are a symptom to correlate only when they form a queue that lasts. A queue gone
     * by the last third of the run belonged to the warm-up, as {@link PoolStarvationRule} reads it
     * (CI, the gc-pool-starvation fixed twin: one waiter in the first window, none after, r = 0.81
     * against two young pauses). And one waiter is no queue: the probe counts an acquire that took
     * over a millisecond as a waiter, so a pause landing inside any acquire makes one, with the
     * pool's idle connections at 8-10 (CI, all 34 demo cases of two runs: 0 or 1 pending, never
     * more). Correlated with the pauses that caused them, those made log-storm a gc-pressure WARN
     * at 0.8 % of wall time paused.
     */
    private static boolean steadyQueue(ColumnStats pending) {
        return pending.max() >= QUEUE_MIN_WAITERS && PoolStarvationRule.lasts(pending);
    }

    private static String collector(Evidence ev) {
        Optional<Table> cfg = ev.rows("heap-config");
        String c = cfg.map(t -> t.text(0, "collector")).orElse(null);
        if (c == null) c = ev.rows("gc-collectors").map(t -> t.text(0, "collector")).orElse("");
        String lc = c.toLowerCase(Locale.ROOT);
        if (lc.contains("g1")) return "G1";
        if (lc.contains("parallel") || lc.contains("ps ")) return "Parallel";
        if (lc.contains("zgc") || lc.startsWith("z")) return "ZGC";
        if (lc.contains("shenandoah")) return "Shenandoah";
        if (lc.contains("serial") || lc.contains("copy") || lc.contains("marksweep")) return "Serial";
        return c;
    }

    // The threshold applies to collectors that grow the heap by free ratio (G1, Serial).
    private static double minHeapFree(Evidence ev, String collector) {
        double v = ev.rows("heap-config").map(t -> t.number(0, "minHeapFreeRatio")).orElse(Double.NaN);
        if (Double.isFinite(v)) return v;
        return collector.equals("G1") || collector.equals("Serial") ? DEFAULT_MIN_HEAP_FREE : Double.NaN;
    }

    // Late in the run: the state the service settled into under the load.
    private static double freeRatio(Evidence ev) {
        double used = ev.stats("heap", "usedAfterGcMb").map(ColumnStats::lastThird).orElse(Double.NaN);
        double committed = ev.stats("heap", "committedMb").map(ColumnStats::lastThird).orElse(Double.NaN);
        return committed > 0 ? 1 - used / committed : Double.NaN;
    }

    private static Optional<String> resizing(Evidence ev, Numbers n) {
        Optional<ColumnStats> committed = ev.stats("heap", "committedMb");
        if (committed.isEmpty()) return Optional.empty();
        double max = ev.stats("heap", "maxMb").map(ColumnStats::max).orElse(committed.get().max());
        double moved = committed.get().max() - committed.get().min();
        if (!(moved >= RESIZE_SHARE * committed.get().max())) return Optional.empty();
        String ref = "series/heap#committedMb";
        return Optional.of("committed heap resized " + n.tag(Fmt.num(committed.get().min()), ref) + " → "
                + n.tag(Fmt.num(committed.get().max()), ref) + " MB of max "
                + n.tag(Fmt.num(max), ev.has("heap", "maxMb") ? "series/heap#maxMb" : ref) + " MB during the run");
    }

    /**
     * From JFR's allocation samples when they were recorded (their weights stand for every byte a
     * thread allocated), else from the heap's growth between GCs. The latter misses what G1 holds
     * in its current allocation regions, which is most of it when the young generation is a few
     * regions: CI's gc-pool-starvation read 13 MB/s that way, 42 MB/s from the samples, and the
     * lab's own count is 185 KB per request at 200 req/s.
     */
    private static String allocationPerRequest(Evidence ev, Numbers n) {
        boolean sampled = sampledMbPerSec(ev) > 0;
        String ref = sampled ? "tables/alloc-sites" : "series/alloc#mbPerSec";
        double mbPerSec = mbPerSec(ev);
        double kb = kbPerRequest(ev);
        if (!(mbPerSec > 0) || !(kb > 0)) return "";
        return n.tag(Fmt.num(mbPerSec), ref) + " MB/s allocated, " + n.tag(Fmt.num(kb), ref) + " KB per request";
    }

    private static double sampledMbPerSec(Evidence ev) {
        double sampledMb = ev.rows("alloc-sites").map(t -> Evidence.meta(t, "totalMb")).orElse(Double.NaN);
        double seconds = ev.observedSeconds();
        // The table counts decimal MB (bytes / 1e6), the series MiB.
        return sampledMb > 0 && seconds > 0 ? sampledMb * 1e6 / (1024 * 1024) / seconds : Double.NaN;
    }

    private static double mbPerSec(Evidence ev) {
        double sampled = sampledMbPerSec(ev);
        return sampled > 0 ? sampled : ev.stats("alloc", "mbPerSec").map(ColumnStats::mean).orElse(Double.NaN);
    }

    /** KB allocated per request at the mean rate; NaN when either is unknown. */
    static double kbPerRequest(Evidence ev) {
        double rps = ev.stats("requests", "rps").map(ColumnStats::mean).orElse(Double.NaN);
        double mb = mbPerSec(ev);
        return mb > 0 && rps > 0 ? mb * 1024 / rps : Double.NaN;
    }

    /** Where the allocation comes from (JFR allocation samples): the fix's second half names this code. */
    private static String topAllocationSite(Evidence ev, Numbers n) {
        Optional<Table> sites = allocationSites(ev);
        if (sites.isEmpty()) return "";
        Table t = sites.get();
        String cls = Evidence.text(t, 0, "topClass");
        return n.tag(Fmt.pct(t.number(0, "share")), "tables/alloc-sites#0") + " of sampled allocation at " + t.text(0, "site")
                + (cls.isEmpty() ? "" : " (mostly " + cls + ")");
    }

    /** The allocation samples, when their top site carries enough of the bytes to be named ({@link GcTrigger} names it too). */
    static Optional<Table> allocationSites(Evidence ev) {
        return ev.rows("alloc-sites").filter(t -> t.number(0, "share") >= MIN_SITE_SHARE);
    }
}
