package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * A cached method ({@code @Cacheable}) whose key is built from an argument that compares by
 * identity, or a cache library (Caffeine, Guava) handed such keys by the application, read from
 * table {@code cache-keys}: no later call can make an equal key, so every call misses and runs the
 * method or the loader. What that costs is read under the method (the cached one, or the one that
 * asked the cache): the dependency calls it makes (a call's frames pass through it) and its CPU
 * samples.
 */
final class IdentityCacheKeys {

    /** Keys per request from which every request is taken to run the cached method. */
    static final double MIN_PER_REQUEST = 0.5;
    /**
     * Share of the calls whose key object was new (not among the agent's last few, {@code newKeys}):
     * below it the same instances come back and find their entries, identity or not.
     */
    static final double MIN_NEW = 0.5;

    final int row;
    /** As recorded: Spring's and Micronaut's cached method, a library's caller with its line. */
    final String method;
    final String key;
    final double perRequest;
    /** Share of calls with a new key object; NaN when the agent did not count them (before session 51). */
    final double newShare;
    /** {@code caffeine} or {@code guava} for a cache the application calls itself; null for an annotation cache. */
    final String library;
    /** Share of the requests' time in dependency calls made under the method. */
    final double callShare;
    /** Share of the CPU samples with the method on the stack; NaN without a profile. */
    final double cpuShare;

    private IdentityCacheKeys(Table t, int row, double callShare, double cpuShare) {
        this.row = row;
        this.method = t.text(row, "method");
        this.key = t.text(row, "key");
        this.perRequest = t.number(row, "perRequest");
        this.newShare = newShare(t, row);
        String cache = t.text(row, "cache");
        this.library = "caffeine".equals(cache) || "guava".equals(cache) ? cache : null;
        this.callShare = callShare;
        this.cpuShare = cpuShare;
    }

    /** Row {@code row}'s share of calls with a new key object; NaN without {@code newKeys}. */
    private static double newShare(Table t, int row) {
        return t.number(row, "newKeys") / t.number(row, "calls");
    }

    /** The cached method, or the library's caller, without its line. */
    String methodName() {
        return Frames.stripLine(method);
    }

    double cost() {
        return Math.max(callShare, Double.isNaN(cpuShare) ? 0 : cpuShare);
    }

    /** The identity-keyed method called most per request, once that is at least {@link #MIN_PER_REQUEST}. */
    static Optional<IdentityCacheKeys> of(Evidence ev) {
        Optional<Table> rows = ev.rows("cache-keys");
        if (rows.isEmpty()) return Optional.empty();
        Table t = rows.get();
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"identity".equals(t.text(i, "keyEquality")) || t.text(i, "method") == null
                    || !(t.number(i, "perRequest") >= MIN_PER_REQUEST)) continue;
            if (newShare(t, i) < MIN_NEW) continue;
            if (best < 0 || t.number(i, "calls") > t.number(best, "calls")) best = i;
        }
        if (best < 0) return Optional.empty();
        String method = Frames.stripLine(t.text(best, "method"));
        double calls = 0;
        Optional<Table> callRows = ev.rows("calls");
        for (int c = 0; callRows.isPresent() && c < callRows.get().rows().size(); c++) {
            Table ct = callRows.get();
            if (!SlowCallsRule.onPath(ct, c, method)) continue;
            double share = ct.number(c, "shareOfRequestTime");
            if (share > 0) calls += share;
        }
        double cpu = ev.cpuShare(f -> Frames.stripLine(f).equals(method));
        return Optional.of(new IdentityCacheKeys(t, best, calls, cpu));
    }

}
