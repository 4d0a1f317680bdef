package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;

/**
 * A slow call made rarely, but many at a time: the requests that find a cached value expired all
 * recompute it at once (a cache stampede). A service outside the lab that cached a report's total
 * for two seconds ran its 800 ms aggregate 160 times in 20 s, 6 at a time on average, once per 650
 * requests; it read "index the filtered column", and the query was as fast as it could be.
 */
final class Stampede {
    /** At most one call per this many requests: a refresh, not a part of each request. */
    static final double RARE_PER_REQUEST = 0.02;
    /** Calls of it in flight on average (Little's Law over the run): more than one is a herd. */
    static final double IN_FLIGHT = 2;
    static final double MIN_CALLS = 10;

    private Stampede() { }

    /** "; it runs once per 650 requests, but 6.4 at a time on average: …", or "" when not a stampede. */
    static String clause(Evidence ev, Table t, int row, Numbers n) {
        double count = t.number(row, "count"), perRequest = t.number(row, "perRequest");
        double seconds = ev.observedSeconds();
        if (!(count >= MIN_CALLS) || !(perRequest > 0 && perRequest <= RARE_PER_REQUEST) || !(seconds > 0)) return "";
        double inFlight = t.number(row, "totalMs") / (seconds * 1000);
        if (!(inFlight >= IN_FLIGHT)) return "";
        String ref = "tables/calls#" + row;
        return "; it runs once per " + n.tag(Fmt.num(Math.round(1 / perRequest)), ref) + " requests, but "
                + n.tag(Fmt.num(inFlight), ref) + " at a time on average: the requests that find a cached result expired all"
                + " compute it again at once (a cache stampede), and wait for each other at the dependency";
    }

    static final String FIX = "Let one caller recompute the value while the others keep serving the one they have: refresh"
            + " ahead of expiry (Caffeine's refreshAfterWrite), one computation per key that the others wait on or skip (a"
            + " CompletableFuture in a ConcurrentHashMap, Spring's @Cacheable(sync = true), a compare-and-set flag), or"
            + " compute it on a schedule off the request path. Then, if it is still slow, make the call itself cheaper.";
}
