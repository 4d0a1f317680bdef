package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * HTTP requests at two depths: the container (Tomcat's {@code CoyoteAdapter.service}, Jetty's
 * {@code Server.handle} ({@link JettyHooks}), Undertow's {@code Connectors.executeRootHandler}
 * ({@link UndertowHooks}): filters, servlet, everything) and Spring's
 * {@code DispatcherServlet.doDispatch} (the handler). Both run on the request's thread for a
 * synchronous request, so the handler's time and route travel to the container's exit in
 * per-thread state ({@link PerThread}). The difference is what filters and the container add.
 */
final class RequestProbe {

    static final String COYOTE_ADAPTER = "org.apache.catalina.connector.CoyoteAdapter";
    static final String DISPATCHER = "org.springframework.web.servlet.DispatcherServlet";
    static final String PATTERN_ATTRIBUTE = "org.springframework.web.servlet.HandlerMapping.bestMatchingPattern";
    static final long[] GAP_BUCKETS_MS = {0, 100, 1_000, 10_000, 60_000};
    /** The classes whose container hooks count requests: one of them woven means requests are observed. */
    static final List<String> CONTAINERS = List.of(COYOTE_ADAPTER, JettyHooks.SERVER, UndertowHooks.CONNECTORS);
    /** Container calls nested on one thread (Undertow runs a dispatch in place): more is a runaway, not a request. */
    private static final int MAX_DEPTH = 62;

    /**
     * Per thread, for the request now in the container on it: {route, long[] {dispatch depth,
     * handler ns, container depth, handed-on bits by container depth}}, one lookup per hook call.
     * JDK types only: in PerThread's ThreadLocal fallback, an agent class held by application
     * threads would keep the agent's class loader alive after detach.
     */
    private final PerThread current = new PerThread(() -> new Object[] {null, new long[4]});
    /**
     * Route pattern → {method, stats, method, stats, ...}, copied on write: found without
     * concatenating a key, and the method (a fresh String per request in Tomcat) compared, not
     * hashed into a second map.
     */
    private final ConcurrentHashMap<String, Object[]> byPattern = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, RouteStats> routes = new ConcurrentHashMap<>();
    /**
     * Guards the distributions folded from the routes' recorders ({@link RouteStats#fold}): the
     * window's (since its last sample), the idle-gap buckets' and each route's own. Taken once a
     * second and by readers, never by a request.
     */
    private final Object foldLock = new Object();
    private final Histogram window = new Histogram(3);
    private final LongAdder errors = new LongAdder();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger inFlightMax = new AtomicInteger();
    private final AtomicLong lastEndNs = new AtomicLong();
    private final Histogram[] gapLatency = new Histogram[GAP_BUCKETS_MS.length];
    /** A route's recorders: one per gap bucket, and the last for requests whose gap is unknown. */
    private static final int SLOTS = GAP_BUCKETS_MS.length + 1;
    private final Getter status = new Getter("getStatus");
    private final Getter patternAttribute = new Getter("getAttribute", PATTERN_ATTRIBUTE);
    private final Getter httpMethod = new Getter("getMethod");
    final LongAdder containerNsTotal = new LongAdder();
    final LongAdder requests = new LongAdder();
    private final PoolProbe pools;

    /** @param pools where a container's worker pool goes when a request hook finds it (Jetty's) */
    RequestProbe(PoolProbe pools) {
        this.pools = pools;
        for (int i = 0; i < gapLatency.length; i++) gapLatency[i] = new Histogram(3);
    }

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new ContainerHook(this, COYOTE_ADAPTER, "service", "(Lorg/apache/coyote/Request;", Hook.ARG1) {
            @Override
            double status(Object self, Object arg0, Object arg1) {
                return status.number(arg1);
            }
        });
        h.add(new Hook(DISPATCHER, "doDispatch", "(", Hook.TIMED | Hook.ARG0) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                ((long[]) state()[1])[0]++;
                return System.nanoTime();
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                Object[] s = state();
                long[] c = (long[]) s[1];
                if (--c[0] > 0 || s[0] != null) return;  // error and forward dispatches: keep the first
                Object pattern = patternAttribute.call(arg0);
                Object method = httpMethod.call(arg0);
                s[0] = route(method, pattern == null ? "(unmapped)" : pattern.toString());
                c[1] = end - start;
            }
        });
        h.addAll(new JettyHooks(this, pools).hooks());
        h.addAll(UndertowHooks.hooks(this));
        return h;
    }

    /** A container hook's entry: a new request on this thread. Returns its start. */
    long containerEnter() {
        Object[] s = state();
        s[0] = null;
        long[] c = (long[]) s[1];
        c[0] = 0;
        c[1] = -1;
        if (c[2] < MAX_DEPTH) c[2]++;
        c[3] &= ~(1L << c[2]);
        int n = inFlight.incrementAndGet();
        if (n > inFlightMax.get()) inFlightMax.accumulateAndGet(n, Math::max);  // a read, not a CAS, in the common case
        return System.nanoTime();
    }

    /**
     * The container call now running on this thread handed its request on to another call
     * (Undertow's dispatch from the I/O thread to a worker), which will count it: this one is
     * not a request of its own.
     */
    void handOff() {
        long[] c = (long[]) state()[1];
        c[3] |= 1L << c[2];
    }

    /** A container hook's exit, {@code end} read first thing; status NaN when unknown. */
    void containerExit(long start, long end, double status, Throwable thrown) {
        inFlight.decrementAndGet();
        Object[] s = state();
        long[] c = (long[]) s[1];
        long depth = c[2];
        // Depth 0: entered before a renewal of the probes, whose fresh thread-locals know nothing of it.
        boolean handedOn = depth > 0 && (c[3] & (1L << depth)) != 0;
        if (depth > 0) c[2] = depth - 1;
        Object r = s[0];
        s[0] = null;  // not kept past the request: it would outlive a reset of the probes
        if (handedOn) return;
        record(start, end, r == null ? route(null, null) : (RouteStats) r, c[1], thrown != null || status >= 500);
    }

    private Object[] state() {
        return (Object[]) current.get();
    }

    /** The stats of {@code method pattern}; both null: requests no handler took. */
    RouteStats route(Object method, String pattern) {
        String p = pattern == null ? "" : pattern;
        String m = method == null ? "" : method.toString();
        RouteStats r = known(byPattern.get(p), m);
        return r != null ? r : newRoute(p, m, pattern == null ? "(no handler)" : m + " " + p);
    }

    private static RouteStats known(Object[] byMethod, String m) {
        if (byMethod == null) return null;
        for (int i = 0; i < byMethod.length; i += 2) if (m.equals(byMethod[i])) return (RouteStats) byMethod[i + 1];
        return null;
    }

    /** A pattern and method seen for the first time: rare, so a lock and a copy. */
    private RouteStats newRoute(String p, String m, String name) {
        synchronized (byPattern) {
            Object[] byMethod = byPattern.get(p);
            RouteStats r = known(byMethod, m);
            if (r != null) return r;
            r = routes.computeIfAbsent(name, n -> new RouteStats(n, SLOTS));
            int n = byMethod == null ? 0 : byMethod.length;
            Object[] grown = byMethod == null ? new Object[2] : Arrays.copyOf(byMethod, n + 2);
            grown[n] = m;
            grown[n + 1] = r;
            byPattern.put(p, grown);
            return r;
        }
    }

    /** One completed request. */
    void record(long startNs, long endNs, RouteStats route, long handlerNs, boolean failed) {
        long latency = endNs - startNs;
        long prevEnd = lastEndNs.getAndSet(endNs);
        long gapMs = prevEnd == 0 ? -1 : Math.max(0, (startNs - prevEnd) / 1_000_000);
        if (failed) errors.increment();
        containerNsTotal.add(latency);
        route.add(latency, handlerNs, gapMs, gapSlot(gapMs));
        requests.increment();  // last: a reader that sees the count finds the request in its route
    }

    /** The gap bucket of {@code gapMs}; past the buckets when the gap is unknown (negative). */
    static int gapSlot(long gapMs) {
        if (gapMs < 0) return GAP_BUCKETS_MS.length;
        int b = 0;
        while (b + 1 < GAP_BUCKETS_MS.length && gapMs >= GAP_BUCKETS_MS[b + 1]) b++;
        return b;
    }

    /** Moves every route's newly recorded requests into the distributions read below; under foldLock. */
    private void fold() {
        for (RouteStats r : routes.values()) r.fold(window, gapLatency);
    }

    /** One window's row of series {@code requests}; the window's histogram starts over. */
    Map<String, Double> sample(double seconds) {
        Map<String, Double> row = new LinkedHashMap<>();
        synchronized (foldLock) {
            fold();
            windowRow(row, seconds);
            window.reset();
        }
        return row;
    }

    private void windowRow(Map<String, Double> row, double seconds) {
        Histogram h = window;
        long n = h.getTotalCount();
        long err = errors.sumThenReset();
        row.put("rps", n / seconds);
        row.put("targetRps", Double.NaN);  // server side: nobody intended a rate here
        row.put("p50Ms", n == 0 ? Double.NaN : h.getValueAtPercentile(50) / 1e3);
        row.put("p90Ms", n == 0 ? Double.NaN : h.getValueAtPercentile(90) / 1e3);
        row.put("p99Ms", n == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1e3);
        row.put("maxMs", n == 0 ? Double.NaN : h.getMaxValue() / 1e3);
        row.put("meanMs", n == 0 ? Double.NaN : h.getMean() / 1e3);
        row.put("errors", (double) err);
        row.put("inFlight", (double) inFlightMax.getAndSet(inFlight.get()));
    }

    /** Rows of table {@code routes}, busiest first. */
    List<Map<String, Object>> routeRows() {
        synchronized (foldLock) {
            fold();
            List<RouteStats> all = new ArrayList<>(routes.values());
            all.sort(Comparator.comparingLong(RouteStats::count).reversed());
            List<Map<String, Object>> rows = new ArrayList<>();
            for (RouteStats r : all) rows.add(r.row());
            return rows;
        }
    }

    /** Rows of table {@code idle-gap}: latency by the idle time before the request. */
    List<Map<String, Object>> idleGapRows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        synchronized (foldLock) {
            fold();
            for (int i = 0; i < GAP_BUCKETS_MS.length; i++) gapRow(rows, i);
        }
        return rows;
    }

    private void gapRow(List<Map<String, Object>> rows, int i) {
        Histogram h = gapLatency[i];
        if (h.getTotalCount() == 0) return;
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("gapMs", GAP_BUCKETS_MS[i]);
        r.put("count", h.getTotalCount());
        r.put("p50Ms", h.getValueAtPercentile(50) / 1e3);
        r.put("p99Ms", h.getValueAtPercentile(99) / 1e3);
        rows.add(r);
    }
}
