package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * A hand-made LRU cache (a {@code LinkedHashMap} bounded in {@code removeEldestEntry}) that throws
 * out entries on a large share of the requests, read from table {@code lru-maps}: every eviction
 * is a value computed again, and a cache that is smaller than the keys in use computes on most
 * requests. Nothing in the profile names such a cache (its lookups return null, and the caller
 * computes and puts), so what its misses cost is read under the method that fills it: the CPU
 * samples with that method on the stack, and the dependency calls it makes. A cache that evicts
 * a few entries while holding the requests' working set costs next to nothing there. A map whose
 * keys compare by identity ({@code keyEquality}, read by the agent from the evicted key's class)
 * is not too small: no lookup with a freshly made key can find anything in it.
 */
final class ThrashingLru {

    /** Evictions per request below which a bounded map is keeping its working set. */
    static final double MIN_PER_REQUEST = 0.05;
    /**
     * Sampled evictions ({@code sampledEvictions}) from which the keys that came back
     * ({@code returnedKeys}) are read, and the share of them below which the map is no cache: its
     * keys never return (an archive of the newest receipts by number, the lab's receipt-leak fixed
     * twin), so an eviction recomputes nothing. A map whose keys compare by identity is read by
     * its keys, not by this.
     */
    static final long MIN_SAMPLED = 30;
    static final double MIN_RETURNED = 0.01;

    final int row;
    final String map;
    final String filler;
    final String fillPath;
    final long bound, evictions;
    final double perRequest;
    /** Share of the CPU samples with the filler on the stack; NaN without a profile. */
    final double cpuShare;
    /** Share of the requests' time in dependency calls made by the filler. */
    final double callShare;
    final String call;
    /** The evicted keys' class; null when the case file does not say. */
    final String key;
    /** Whether the keys keep Object's equals or hashCode. */
    final boolean identityKeys;

    private ThrashingLru(Table t, int row, double perRequest, double cpuShare, double callShare, String call) {
        this.row = row;
        this.map = t.text(row, "map");
        this.filler = t.text(row, "filler");
        this.fillPath = t.text(row, "fillPath");
        this.bound = (long) t.number(row, "bound");
        this.evictions = (long) t.number(row, "evictions");
        this.perRequest = perRequest;
        this.cpuShare = cpuShare;
        this.callShare = callShare;
        this.call = call;
        this.key = t.text(row, "key");
        this.identityKeys = "identity".equals(t.text(row, "keyEquality"));
    }

    /** What the misses cost: the larger of the filler's CPU share and its calls' share of request time. */
    double cost() {
        return Math.max(Double.isNaN(cpuShare) ? 0 : cpuShare, callShare);
    }

    boolean byCalls() {
        return callShare > (Double.isNaN(cpuShare) ? 0 : cpuShare);
    }

    /** The map evicting on the most requests, once that is at least {@link #MIN_PER_REQUEST}, with what its filler costs. */
    static Optional<ThrashingLru> of(Evidence ev) {
        Optional<Table> rows = ev.rows("lru-maps");
        double requests = ev.requestCount();
        if (rows.isEmpty() || !(requests > 0)) return Optional.empty();
        Table t = rows.get();
        Table calls = ev.rows("calls").orElse(null);
        ThrashingLru best = null;
        for (int i = 0; i < t.rows().size(); i++) {
            String filler = t.text(i, "filler");
            double perRequest = t.number(i, "evictions") / requests;
            if (filler == null || !(perRequest >= MIN_PER_REQUEST) || keysNeverReturn(t, i)) continue;
            String method = Frames.stripLine(filler);
            double cpu = ev.cpuShare(f -> Frames.stripLine(f).equals(method));
            double callShare = 0;
            String call = null;
            double top = 0;
            for (int c = 0; calls != null && c < calls.rows().size(); c++) {
                String caller = calls.text(c, "caller");
                double share = calls.number(c, "shareOfRequestTime");
                if (caller == null || !Frames.stripLine(caller).equals(method) || !(share > 0)) continue;
                callShare += share;
                if (share > top) {
                    top = share;
                    call = calls.text(c, "kind") + " " + calls.text(c, "target");
                }
            }
            ThrashingLru candidate = new ThrashingLru(t, i, perRequest, cpu, callShare, call);
            if (best == null || candidate.cost() > best.cost()) best = candidate;
        }
        return Optional.ofNullable(best);
    }

    /** Whether the map's sampled evicted keys never came back (see {@link #MIN_RETURNED}); false when not counted. */
    static boolean keysNeverReturn(Table t, int row) {
        double sampled = t.number(row, "sampledEvictions");
        return sampled >= MIN_SAMPLED && t.number(row, "returnedKeys") < MIN_RETURNED * sampled
                && !"identity".equals(t.text(row, "keyEquality"));
    }

    /**
     * "The LRU map X evicted on 95 % of the requests, but none of the 310 evicted keys sampled came
     * back: …" for the map that evicted most among those whose keys never return; null when none did
     * on {@link #MIN_PER_REQUEST} of the requests.
     */
    static String archive(Evidence ev) {
        Optional<Table> rows = ev.rows("lru-maps");
        double requests = ev.requestCount();
        if (rows.isEmpty() || !(requests > 0)) return null;
        Table t = rows.get();
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!keysNeverReturn(t, i) || !(t.number(i, "evictions") / requests >= MIN_PER_REQUEST)) continue;
            if (best < 0 || t.number(i, "evictions") > t.number(best, "evictions")) best = i;
        }
        if (best < 0) return null;
        long returned = (long) t.number(best, "returnedKeys");
        return "The LRU map " + t.text(best, "map") + " evicted on " + Fmt.pct(Math.min(1, t.number(best, "evictions") / requests))
                + " of the requests, but " + (returned == 0 ? "none" : Fmt.num(returned)) + " of the "
                + Fmt.num(t.number(best, "sampledEvictions")) + " evicted keys sampled came back: it keeps the newest entries of"
                + " keys that do not repeat, and an eviction recomputes nothing.";
    }
}
