package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A request's latency is recorded once, into its route's recorder for its idle-gap slot; the
 * window, the route and the gap buckets are folded from those when read. Each must count every
 * request exactly once: the window per sample, the route and the buckets since the start.
 */
class RequestFoldTest {

    private static final long MS = 1_000_000;

    @Test
    void windowRouteAndGapBucketsEachSeeEveryRequestOnce() {
        RequestProbe p = new RequestProbe(new PoolProbe());
        RouteStats get = p.route("GET", "/orders/{id}");
        RouteStats post = p.route("POST", "/orders");
        assertThat(p.route("GET", "/orders/{id}")).isSameAs(get);
        long t = 1_000 * MS;
        p.record(t, t + 2 * MS, get, MS, false);             // the first: no gap known
        p.record(t + 2 * MS, t + 5 * MS, get, MS, false);    // gap 0 ms
        p.record(t + 2_005 * MS, t + 2_009 * MS, post, -1, true);  // gap 2 s
        Map<String, Double> first = p.sample(1.0);
        assertThat(first.get("rps")).isEqualTo(3.0);
        assertThat(first.get("errors")).isEqualTo(1.0);
        assertThat(first.get("maxMs")).isBetween(3.99, 4.01);

        p.record(t + 2_009 * MS, t + 2_010 * MS, get, MS, false);  // gap 0 ms
        List<Map<String, Object>> routes = p.routeRows();  // folds without a sample
        assertThat(routes).extracting(r -> r.get("route"), r -> r.get("count"))
                .containsExactly(tuple("GET /orders/{id}", 3L),
                        tuple("POST /orders", 1L));
        assertThat(p.sample(1.0).get("rps")).as("the request folded by the read belongs to the next window").isEqualTo(1.0);
        assertThat(p.sample(1.0).get("rps")).isEqualTo(0.0);

        List<Map<String, Object>> gaps = p.idleGapRows();
        assertThat(gaps).extracting(r -> r.get("gapMs"), r -> r.get("count"))
                .containsExactly(tuple(0L, 2L), tuple(1_000L, 1L));
        assertThat(p.routeRows().get(0).get("count")).as("folding twice counts nothing twice").isEqualTo(3L);
        assertThat(p.count()).isEqualTo(4);
    }

    /** Each thread logs its own requests; the fold merges them by end time for the idle gap. */
    @Test
    void requestsOfManyThreadsAreMergedByTheirEnds() throws Exception {
        RequestProbe p = new RequestProbe(new PoolProbe());
        RouteStats get = p.route("GET", "/orders/{id}");
        long t = 1_000 * MS;
        Thread other = new Thread(() -> p.record(t + 500 * MS, t + 600 * MS, get, MS, false));  // gap 495 ms
        p.record(t, t + 5 * MS, get, MS, false);              // the first: no gap known
        p.record(t + 1_020 * MS, t + 1_021 * MS, get, MS, false);  // gap 420 ms after the other thread's
        other.start();
        other.join();
        assertThat(p.sample(1.0).get("rps")).isEqualTo(3.0);
        assertThat(p.idleGapRows()).extracting(r -> r.get("gapMs"), r -> r.get("count"))
                .as("the other thread's request sits between this one's: two gaps of 100 ms to 1 s")
                .containsExactly(tuple(100L, 2L));
    }

    @Test
    void inFlightIsTheRequestsInTheContainerWhenTheWindowCloses() {
        RequestProbe p = new RequestProbe(new PoolProbe());
        long start = p.containerEnter();
        assertThat(p.sample(1.0).get("inFlight")).isEqualTo(1.0);
        p.containerExit(start, System.nanoTime(), 200, null);
        Map<String, Double> row = p.sample(1.0);
        assertThat(row.get("inFlight")).isEqualTo(0.0);
        assertThat(row.get("rps")).isEqualTo(1.0);
        assertThat(p.routeRows()).extracting(r -> r.get("route")).containsExactly("(no handler)");
    }
}
