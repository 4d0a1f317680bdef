package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.Stats;
import io.culprit.model.Finding;
import io.culprit.model.Series;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A leak: what the heap holds after each collection climbs through the run, so the objects the
 * requests allocate outlive them. GC pressure then looks like a heap that is too small, and
 * growing the heap (gc-pressure's fix) only delays the OutOfMemoryError. The signature is the
 * floor of the heap after GC: the lowest value in the last third of the windows against the lowest
 * in the first third (a collection of the old generation brings promoted garbage back down to the
 * floor, a leak raises the floor), with the values rising steadily with time. JFR's leak profiler
 * ({@code old-objects}) names the code that allocated the survivors when one site dominates.
 */
public final class HeapLeakRule implements Rule {
    /** Collections enough to see a trend: five windows that end with a GC. */
    static final int MIN_GC_WINDOWS = 5;
    /** Fewer collections do if the heap after each is above the one before. */
    static final int MIN_RISING_WINDOWS = 4;
    /** The heap after GC follows time closely: r ≥ 0.8 of the values against their windows. */
    static final double MIN_TREND_R = 0.8;
    /**
     * The floor rose by 5 % of the maximum heap and by 8 MB: a healthy service's heap after young
     * collections drifts up by a few MB as survivors are promoted (the lab at 4,000 req/s: ≤ 3 MB in
     * 10 s), and a 5 % step of a small heap is within its sawtooth.
     */
    static final double MIN_GROWTH_SHARE = 0.05;
    static final double MIN_GROWTH_MB = 8;
    /** Full within ten minutes at the measured rate: an outage is close, whatever the pauses say now. */
    static final double FILL_CRITICAL_S = 600;
    /** A site that allocated a third of the surviving samples is the one to name. */
    static final double MIN_SITE_SHARE = 0.3;
    static final int MIN_SAMPLES = 10;
    /**
     * Fewer samples still reachable at the end name a site when most of them agree: small objects
     * leaking at a high rate (a Micrometer counter per customer id at 10,000 req/s, 0.3 KB a request)
     * are a small share of what the JVM samples, and the leak watch starts only once the heap has
     * grown: a blind test's 20 s run kept 5, 4 of them under the handler that tagged the counter.
     */
    static final int MIN_ROOTED = 5;
    static final double FEW_SITE_SHARE = 0.5;

    @Override public String id() { return "heap-leak"; }
    @Override public String title() { return "The live heap grows: objects outlive their requests"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Series> heap = ev.series("heap");
        double[] after = heap.flatMap(s -> s.column("usedAfterGcMb")).orElse(null);
        if (after == null) return notAssessed("no series heap#usedAfterGcMb");
        List<double[]> points = new ArrayList<>();  // {seconds since the first window, MB}
        List<Long> t = heap.get().t();
        for (int i = 0; i < after.length; i++) {
            if (Double.isFinite(after[i])) points.add(new double[] {(t.get(i) - t.get(0)) / 1000.0, after[i]});
        }
        // A service that collects seldom (a large young generation) gives few points in a short run;
        // four that each rise over the last are a trend too (a leak of 1.1 MB/s at 500 req/s: 4
        // collections in 20 s, 34 → 51 MB).
        if (points.size() < MIN_GC_WINDOWS && !(points.size() >= MIN_RISING_WINDOWS && rising(points))) {
            String few = "the heap after GC is known in " + points.size() + " windows, fewer than " + MIN_GC_WINDOWS
                    + (points.size() >= MIN_RISING_WINDOWS ? ", and not rising at each" : "");
            Numbers n = new Numbers();
            Site kept = points.size() >= 2 && rising(points) ? site(ev, n) : null;
            if (kept == null || kept.site == null || !(rooted(ev.rows("old-objects").orElseThrow()) >= MIN_SAMPLES)) return notAssessed(few);
            // Too few collections for a trend, but the leak watch saw the heap grow before the run and
            // what it sampled is still held: say where to look, and how to be sure.
            return finding(Severity.INFO).score(0.2).evidence("series/heap#usedAfterGcMb").evidence(kept.ref).culprit(kept.site)
                    .summary(few + ", rising at each (" + n.tag(Fmt.num(points.get(0)[1]), "series/heap#usedAfterGcMb") + " to "
                            + n.tag(Fmt.num(points.get(points.size() - 1)[1]), "series/heap#usedAfterGcMb") + " MB); the leak"
                            + " profiler started on a growing heap and " + kept.text + ": too few collections to call it a"
                            + " leak; diagnose longer (--duration 60s) to see whether the heap keeps rising.")
                    .numbers(n.refs())
                    .confirm(ev.confirm("dashboard -n 6 -i 10000") + " (the heap's AFTER GC column keeps rising from frame to frame)")
                    .build();
        }
        double maxMb = ev.stats("heap", "maxMb").map(s -> s.max()).orElse(Double.NaN);
        int third = Math.max(1, points.size() / 3);
        double floorFirst = min(points.subList(0, third)), floorLast = min(points.subList(points.size() - third, points.size()));
        double growth = floorLast - floorFirst;
        double r = Stats.pearson(points.toArray(new double[0][]));
        double slope = slope(points);
        double lastMb = points.get(points.size() - 1)[1];
        double fillS = slope > 0 && maxMb > lastMb ? (maxMb - lastMb) / slope : Double.NaN;

        Numbers n = new Numbers();
        String ref = "series/heap#usedAfterGcMb";
        String floors = "the heap after GC was " + n.tag(Fmt.num(floorFirst), ref) + " MB at its lowest in the first third of the run and "
                + n.tag(Fmt.num(floorLast), ref) + " MB in the last";
        Finding.Builder b = finding(Severity.OK).evidence(ref).numbers(n.refs());
        double minGrowth = Math.max(MIN_GROWTH_MB, Double.isFinite(maxMb) ? MIN_GROWTH_SHARE * maxMb : 0);
        if (!(growth >= minGrowth) || !(r >= MIN_TREND_R)) {
            return b.summary(floors + (growth >= minGrowth ? ", but not steadily (r = " + Fmt.num(r) + " against time)" : "")
                    + ": the live set is not growing.").build();
        }
        Numbers leak = new Numbers();
        String unreachable = unreachable(ev, leak);
        if (unreachable != null) {
            // The floor rose, but what rose it is no longer held: a leak's survivors are reachable.
            return b.severity(Severity.INFO).numbers(leak.refs()).evidence("tables/old-objects")
                    .summary(floors + ", growing " + leak.tag(Fmt.num(slope), ref) + " MB/s (r = " + Fmt.num(r) + "), but "
                            + unreachable + ": garbage promoted to the old generation that no old-generation collection has"
                            + " reclaimed yet, not a leak.").build();
        }
        String rate = leak.tag(Fmt.num(slope), ref) + " MB/s";
        String fill = Double.isFinite(fillS) ? "; at that rate the " + leak.tag(Fmt.num(maxMb), "series/heap#maxMb")
                + " MB heap is full in " + duration(fillS) : "";
        double perRequestKb = slope * 1024 / ev.stats("requests", "rps").map(s -> s.mean()).filter(x -> x > 0).orElse(Double.NaN);
        String perRequest = Double.isFinite(perRequestKb) ? ", " + leak.tag(Fmt.num(perRequestKb), ref) + " KB per request" : "";
        Site site = site(ev, leak);
        boolean pressure = fillS <= FILL_CRITICAL_S || pausedShare(ev) >= GcPressureRule.PAUSE_SHARE_WARN;
        b.severity(pressure ? Severity.CRITICAL : Severity.WARN).score(Math.min(1, growth / (Double.isFinite(maxMb) ? maxMb : growth)) + 0.5)
                .numbers(leak.refs())
                .summary(floors + ", growing " + rate + perRequest + " (r = " + Fmt.num(r) + ")" + fill
                        + (site == null ? "" : "; " + site.text) + ".")
                .explains("gc-pressure").explains("pool-starvation").explains("tail-latency").explains("cpu-saturation")
                .explanation("What the heap holds after a collection is what the service still references. When that floor"
                        + " climbs with the requests served, each request leaves objects reachable: a map or list that only"
                        + " grows, a cache without a bound, listeners or ThreadLocals never removed. The collector works"
                        + " ever harder on a shrinking free heap, and a bigger heap only delays the OutOfMemoryError.")
                .fix(site != null && site.cure != null ? site.cure : "Bound what is kept" + (site == null ? "" : " (" + site.what + ")")
                        + ": evict by size or age (an LRU map, Caffeine's maximumSize or expireAfterWrite), remove what is done with,"
                        + " or keep it outside the heap. Do not size the heap up for it.")
                .confirm(ev.confirm("dashboard -n 6 -i 10000") + " (the heap's AFTER GC column keeps rising from frame to frame)");
        if (site != null) b.evidence(site.ref);
        b.culprit(site != null && site.site != null ? site.site : "objects kept past their request");
        return b.build();
    }

    /** Below this share of reachable survivors, the sample says the growth is garbage, not kept objects. */
    static final double MAX_ROOTED_SHARE_FOR_GARBAGE = 0.1;

    /**
     * "none of the 111 object samples that survived the run is still reachable ..." when JFR
     * searched the samples' paths to GC roots and (almost) none has one; null otherwise, or without
     * that search (a recording with cutoff 0 tells nothing of reachability).
     */
    static String unreachable(Evidence ev, Numbers n) {
        Optional<Table> old = ev.rows("old-objects");
        if (old.isEmpty()) return null;
        Table t = old.get();
        double samples = Evidence.meta(t, "samples"), rooted = rooted(t);
        if (!(samples >= MIN_SAMPLES) || !(rooted <= MAX_ROOTED_SHARE_FOR_GARBAGE * samples)) return null;
        return (rooted == 0 ? "none" : "only " + n.tag(Fmt.num(rooted), "tables/old-objects")) + " of the "
                + n.tag(Fmt.num(samples), "tables/old-objects") + " object samples that survived the run "
                + (rooted <= 1 ? "is" : "are") + " still reachable (JFR searched each one's path to a GC root)";
    }

    /** The reachable survivors when JFR searched their paths to GC roots; NaN without that search. */
    private static double rooted(Table oldObjects) {
        return Boolean.TRUE.equals(oldObjects.meta().get("paths")) ? Evidence.meta(oldObjects, "rooted") : Double.NaN;
    }

    /** What survived: {@code site} null when the samples had no stacks; {@code what} the type and, with stacks, its site. */
    static final class Site {
        final String site, text, what, ref;
        final double share;
        /** A known library's cure for what it keeps; null when none is known. */
        final String cure;

        Site(String site, String text, String what, double share, String ref, String cure) {
            this.site = site;
            this.text = text;
            this.what = what;
            this.share = share;
            this.ref = ref;
            this.cure = cure;
        }
    }

    /** The allocation site of most of JFR's surviving object samples, when one dominates; gc-pressure's fix names it too. */
    static Site site(Evidence ev, Numbers n) {
        Optional<Table> old = ev.rows("old-objects");
        if (old.isEmpty()) return null;
        Table t = old.get();
        double samples = Evidence.meta(t, "samples");
        // With paths to GC roots, the site is the one whose survivors are still held, among those alone.
        double rootedAll = rooted(t);
        boolean byRoots = rootedAll > 0;
        int top = 0;
        if (byRoots) {
            for (int i = 1; i < t.rows().size(); i++) if (t.number(i, "rooted") > t.number(top, "rooted")) top = i;
        }
        double counted = byRoots ? rootedAll : samples;
        double share = byRoots ? t.number(top, "rooted") / rootedAll : t.number(top, "share");
        boolean few = !(counted >= MIN_SAMPLES);
        if (few && !(byRoots && counted >= MIN_ROOTED)) return null;
        double need = few ? FEW_SITE_SHARE : MIN_SITE_SHARE;
        if (!(share >= need)) return null;
        String site = t.text(top, "site");
        String cls = Evidence.text(t, top, "topClass");
        // A recording without stacks for these samples (JDK's default.jfc) still says what was kept.
        boolean located = !site.startsWith("(");
        String what = (cls.isEmpty() ? "objects" : cls) + (located ? " allocated at " + site : "");
        String survivors = " of the " + n.tag(Fmt.num(counted), "tables/old-objects") + (byRoots
                ? " object samples still reachable at the end of the run" : " object samples that survived the run");
        // A library's sites (a metrics registry's meter and its histograms) under the same application
        // code are one leak, and that code is what to change: name it when the site is a library's.
        java.util.Map.Entry<String, Double> app = applicationCaller(t, byRoots);
        if (located && !Frames.isApplication(site) && app != null && app.getValue() / counted >= need) {
            double appShare = app.getValue() / counted;
            String under = what + " under " + app.getKey();
            return new Site(app.getKey(), n.tag(Fmt.pct(appShare), "tables/old-objects") + survivors + " were allocated under " + app.getKey()
                    + " (the most, " + n.tag(Fmt.pct(share), "tables/old-objects#" + top) + ", " + what + ")", under, appShare,
                    "tables/old-objects#" + top, cure(t));
        }
        return new Site(located ? site : null, n.tag(Fmt.pct(share), "tables/old-objects#" + top) + survivors + " were " + what,
                what, share, "tables/old-objects#" + top, cure(t));
    }

    /** The application frame most of the samples (the reachable ones, by roots) were allocated under, and their count; null if none. */
    private static java.util.Map.Entry<String, Double> applicationCaller(Table t, boolean byRoots) {
        java.util.Map<String, Double> by = new java.util.LinkedHashMap<>();
        for (int i = 0; i < t.rows().size(); i++) {
            double count = byRoots ? t.number(i, "rooted") : t.number(i, "samples");
            if (!(count > 0)) continue;
            for (String frame : Evidence.stack(t, i, "stack")) {
                if (!Frames.isApplication(frame)) continue;
                by.merge(Frames.stripLine(frame), count, Double::sum);
                break;
            }
        }
        return by.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElse(null);
    }

    /** A library that keeps what it is handed for good, and the cure for its misuse; null for none known. */
    private static String cure(Table t) {
        for (int i = 0; i < t.rows().size(); i++) {
            for (String frame : Evidence.stack(t, i, "stack")) {
                if (frame.startsWith("io.micrometer.core.instrument.MeterRegistry.getOrCreateMeter")) return MICROMETER_CURE;
            }
        }
        return null;
    }

    static final String MICROMETER_CURE = "Tag meters with a bounded set of values: a Micrometer registry keeps every meter"
            + " registered with a new combination of tag values for good (a session, user or order id, a raw URL or an"
            + " exception message as a tag makes one per request, each with its histogram when percentiles are published)."
            + " Use the id in logs or traces instead, a template (the route, not the path) as the tag, or cap a tag with"
            + " MeterFilter.maximumAllowableTags(name, tag, max, MeterFilter.deny()) so that the registry stops growing.";

    private static double pausedShare(Evidence ev) {
        double seconds = ev.observedSeconds();
        return ev.stats("gc", "pauseSumMs").map(s -> s.sum() / (seconds * 1000)).orElse(0.0);
    }

    /** Each value above the one before. */
    private static boolean rising(List<double[]> points) {
        for (int i = 1; i < points.size(); i++) if (!(points.get(i)[1] > points.get(i - 1)[1])) return false;
        return true;
    }

    private static double min(List<double[]> points) {
        return points.stream().mapToDouble(p -> p[1]).min().orElse(Double.NaN);
    }

    /** Least-squares slope of MB against seconds. */
    private static double slope(List<double[]> points) {
        double mx = points.stream().mapToDouble(p -> p[0]).average().orElse(0);
        double my = points.stream().mapToDouble(p -> p[1]).average().orElse(0);
        double sxy = 0, sxx = 0;
        for (double[] p : points) {
            sxy += (p[0] - mx) * (p[1] - my);
            sxx += (p[0] - mx) * (p[0] - mx);
        }
        return sxx > 0 ? sxy / sxx : Double.NaN;
    }

    private static String duration(double seconds) {
        return seconds < 120 ? Fmt.num(seconds) + " s" : Fmt.num(seconds / 60) + " min";
    }
}
