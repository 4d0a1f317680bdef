package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * HTTP requests at two depths: the container (Tomcat's {@code CoyoteAdapter.service}, Jetty's
 * {@code Server.handle} ({@link JettyHooks}), Undertow's {@code Connectors.executeRootHandler}
 * ({@link UndertowHooks}), Helidon's routing ({@link HelidonHooks}): filters, servlet, everything) and Spring's
 * {@code DispatcherServlet.doDispatch} (the handler). Both run on the request's thread for a
 * synchronous request, so the handler's time and route travel to the container's exit in
 * per-thread state ({@link PerThread}). The difference is what filters and the container add.
 * A finished request goes into its thread's own log ({@link EventLog}); the window, the routes
 * and the idle-gap buckets are folded from those logs when they are read. Event-loop servers,
 * whose requests end on another call than they start ({@link ReactorNettyHooks}, {@link VertxHooks}),
 * count in flight apart ({@link #asyncStarted}) and have no handler time; so do Micronaut's
 * ({@link MicronautHooks}), Ktor's ({@link KtorServerHooks}) and gRPC's ({@link GrpcServerHooks}).
 */
final class RequestProbe {

    static final String COYOTE_ADAPTER = "org.apache.catalina.connector.CoyoteAdapter";
    static final String DISPATCHER = "org.springframework.web.servlet.DispatcherServlet";
    static final String PATTERN_ATTRIBUTE = "org.springframework.web.servlet.HandlerMapping.bestMatchingPattern";
    static final long[] GAP_BUCKETS_MS = {0, 100, 1_000, 10_000, 60_000};
    /** The classes whose container hooks count requests: one of them woven means requests are observed. */
    static final List<String> CONTAINERS = List.of(COYOTE_ADAPTER, JettyHooks.SERVER, UndertowHooks.CONNECTORS,
            ReactorNettyHooks.SERVER_OPERATIONS, VertxHooks.REQUEST, VertxHooks.REQUEST_51, HelidonHooks.ROUTING,
            MicronautHooks.REQUEST, GrizzlyHooks.HANDLER, KtorServerHooks.HTTP1_CALL, GrpcServerHooks.TRANSPORT_LISTENER);
    /** Container calls nested on one thread (Undertow runs a dispatch in place): more is a runaway, not a request. */
    private static final int MAX_DEPTH = 62;

    // A thread's ring (EventLog) carries, in its own words, the request now in the container on
    // it: one lookup per hook call, no state shared with other request threads.
    /** Nested dispatches of the request now on this thread. */
    private static final int DISPATCHES = EventLog.USER;
    /** The handler's time of that request, -1 while no dispatch ended. */
    private static final int HANDLER_NS = EventLog.USER + 1;
    /** Container calls now open on this thread. */
    private static final int DEPTH = EventLog.USER + 2;
    /** Bit d: the container call at depth d handed its request on. */
    private static final int HANDED_ON = EventLog.USER + 3;
    /** The request's route, as its index + 1; 0 while no dispatch named one. */
    private static final int ROUTE = EventLog.USER + 4;
    private static final long FAILED = 1L << 32;

    /**
     * Guards everything a fold writes: the window's distribution (since its last sample), the
     * idle-gap buckets', the routes' and the counts. Taken once a second and by readers, and by a
     * request thread only when its ring is full.
     */
    private final Object foldLock = new Object();
    /** Requests as {start, end, handler ns, route index | FAILED}. */
    private final EventLog log = new EventLog(foldLock, this::fold, 5);
    private final PerThread current = new PerThread(log::newRing);
    /** Requests in the container on virtual threads, whose light rings the reader cannot count. */
    private final LongAdder virtualInFlight = new LongAdder();
    /** Requests begun on one thread and not yet ended on another (Reactor Netty's). */
    private final LongAdder asyncInFlight = new LongAdder();
    /**
     * Route pattern → {method, stats, method, stats, ...}, copied on write: found without
     * concatenating a key, and the method (a fresh String per request in Tomcat) compared, not
     * hashed into a second map.
     */
    private final ConcurrentHashMap<String, Object[]> byPattern = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, RouteStats> routes = new ConcurrentHashMap<>();
    private final Indexed<RouteStats> byIndex = new Indexed<>();
    private final Histogram window = Micros.histogram();
    /** The window's largest latency and their sum, in µs: exact, where the histogram keeps 1 %. */
    private long windowMaxUs, windowSumUs;
    private final Histogram[] gapLatency = new Histogram[GAP_BUCKETS_MS.length];
    /** Guarded by foldLock, like the rest of a fold's state. */
    private long errors, count, containerNs, lastEndNs = Long.MIN_VALUE;
    /** A fold's sort keys, reused. */
    private long[] keys = new long[EventLog.CAPACITY];
    private final Getter status = new Getter("getStatus");
    private final Getter patternAttribute = new Getter("getAttribute", PATTERN_ATTRIBUTE);
    private final Getter httpMethod = new Getter("getMethod");
    /** Where a container hook hands the worker pool it finds ({@link ContainerHook#poolOf}). */
    final PoolProbe pools;

    /** @param pools where a container's worker pool goes when a request hook finds it */
    RequestProbe(PoolProbe pools) {
        this.pools = pools;
        for (int i = 0; i < gapLatency.length; i++) gapLatency[i] = Micros.histogram();
    }

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        h.add(new ContainerHook(this, COYOTE_ADAPTER, "service", "(Lorg/apache/coyote/Request;", Hook.SELF | Hook.ARG1) {
            @Override
            double status(Object self, Object arg0, Object arg1) {
                return status.number(arg1);
            }

            /** Tomcat's executor, from the adapter's connector. */
            @Override
            Object poolOf(Object adapter) {
                return Reflect.call(Reflect.call(Reflect.field(adapter, "connector"), "getProtocolHandler"), "getExecutor");
            }
        });
        h.add(new Hook(DISPATCHER, "doDispatch", "(", Hook.TIMED | Hook.ARG0) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                state()[DISPATCHES]++;
                return System.nanoTime();
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                long[] s = state();
                if (--s[DISPATCHES] > 0 || s[ROUTE] != 0) return;  // error and forward dispatches: keep the first
                Object pattern = patternAttribute.call(arg0);
                Object method = httpMethod.call(arg0);
                s[ROUTE] = route(method, pattern == null ? "(unmapped)" : pattern.toString()).index + 1;
                s[HANDLER_NS] = end - start;
            }
        });
        h.addAll(new JettyHooks(this).hooks());
        h.addAll(UndertowHooks.hooks(this));
        h.addAll(ReactorNettyHooks.hooks(this));
        h.addAll(new VertxHooks(this).hooks());
        h.addAll(new HelidonHooks(this).hooks());
        h.addAll(new MicronautHooks(this).hooks());
        h.addAll(new GrizzlyHooks(this).hooks());
        h.addAll(new KtorServerHooks(this).hooks());
        h.addAll(new GrpcServerHooks(this).hooks());
        return h;
    }

    /** A container hook's entry: a new request on this thread. Returns its start. */
    long containerEnter() {
        long[] s = state();
        s[ROUTE] = 0;
        s[DISPATCHES] = 0;
        s[HANDLER_NS] = -1;
        if (s[DEPTH] < MAX_DEPTH && s[DEPTH]++ == 0 && log.isLight(s)) {
            virtualInFlight.increment();
            pools.virtualRequest();
        }
        s[HANDED_ON] &= ~(1L << s[DEPTH]);
        return System.nanoTime();
    }

    /**
     * The container call now running on this thread handed its request on to another call
     * (Undertow's dispatch from the I/O thread to a worker), which will count it: this one is
     * not a request of its own.
     */
    void handOff() {
        long[] s = state();
        s[HANDED_ON] |= 1L << s[DEPTH];
    }

    /**
     * The route of the request now in the container on this thread, for servers whose own entry
     * point knows it (Helidon's routing); a handler's route named earlier (Spring's) is kept.
     */
    void routed(RouteStats route) {
        long[] s = state();
        if (s[ROUTE] == 0) s[ROUTE] = route.index + 1;
    }

    /** A container hook's exit, {@code end} read first thing; status NaN when unknown. */
    void containerExit(long start, long end, double status, Throwable thrown) {
        long[] s = state();
        long depth = s[DEPTH];
        // Depth 0: entered before a renewal of the probes, whose fresh rings know nothing of it.
        boolean handedOn = depth > 0 && (s[HANDED_ON] & (1L << depth)) != 0;
        if (depth > 0) s[DEPTH] = depth - 1;
        if (depth == 1 && log.isLight(s)) virtualInFlight.decrement();
        if (handedOn) return;
        int route = s[ROUTE] == 0 ? route(null, null).index : (int) s[ROUTE] - 1;
        s[ROUTE] = 0;
        log.put(s, start, end, s[HANDLER_NS], route | (thrown != null || status >= 500 ? FAILED : 0));
    }

    private long[] state() {
        return (long[]) current.get();
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
            r = routes.computeIfAbsent(name, n -> byIndex.add(i -> new RouteStats(n, i)));
            int n = byMethod == null ? 0 : byMethod.length;
            Object[] grown = byMethod == null ? new Object[2] : Arrays.copyOf(byMethod, n + 2);
            grown[n] = m;
            grown[n + 1] = r;
            byPattern.put(p, grown);
            return r;
        }
    }

    /** A request that will end on another thread ({@link #asyncEnded}) has begun. */
    void asyncStarted() {
        asyncInFlight.increment();
    }

    /** A request begun with {@link #asyncStarted} ended here; no handler time is known. */
    void asyncEnded(long startNs, long endNs, RouteStats route, boolean failed) {
        asyncInFlight.decrement();
        record(startNs, endNs, route, -1, failed);
    }

    /** One completed request on this thread, as its container hook logs it. */
    void record(long startNs, long endNs, RouteStats route, long handlerNs, boolean failed) {
        log.put(state(), startNs, endNs, handlerNs, route.index | (failed ? FAILED : 0));
    }

    /**
     * Adds drained requests, in the order they ended, to the window, their routes and their gap
     * buckets; under foldLock. The idle gap before a request is the time since the last request
     * that ended before it, so every thread's requests are merged by end time first.
     */
    private void fold(long[] records, int n) {
        int w = EventLog.WORDS;
        long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            min = Math.min(min, records[i * w + 1]);
            max = Math.max(max, records[i * w + 1]);
        }
        // Sort keys: the end, shifted to fit beside the record's index (precision past 2^43 ns of
        // spread is lost, which orders nothing a gap in milliseconds could tell apart).
        int indexBits = 64 - Long.numberOfLeadingZeros(n);
        int shift = Math.max(0, 64 - Long.numberOfLeadingZeros(max - min) - (63 - indexBits));
        if (keys.length < n) keys = new long[Math.max(n, keys.length * 2)];
        for (int i = 0; i < n; i++) keys[i] = ((records[i * w + 1] - min) >>> shift) << indexBits | i;
        Arrays.sort(keys, 0, n);
        Object[] table = byIndex.snapshot();
        long indexMask = (1L << indexBits) - 1;
        for (int k = 0; k < n; k++) {
            int at = (int) (keys[k] & indexMask) * w;
            long start = records[at], end = records[at + 1], meta = records[at + 3];
            long latency = end - start;
            long gapMs = lastEndNs == Long.MIN_VALUE ? -1 : Math.max(0, (start - lastEndNs) / 1_000_000);
            lastEndNs = Math.max(lastEndNs, end);
            long us = Math.max(1, latency / 1_000);
            Micros.record(window, us);
            windowMaxUs = Math.max(windowMaxUs, us);
            windowSumUs += us;
            int slot = gapSlot(gapMs);
            if (slot < gapLatency.length) Micros.record(gapLatency[slot], us);
            ((RouteStats) table[(int) meta]).add(latency, us, records[at + 2], gapMs);
            if ((meta & FAILED) != 0) errors++;
            containerNs += latency;
            count++;
        }
    }

    /** Requests counted so far. */
    long count() {
        synchronized (foldLock) {
            log.drainAll();
            return count;
        }
    }

    /** The container time of every request counted so far, in ms. */
    double containerMs() {
        synchronized (foldLock) {
            log.drainAll();
            return containerNs / 1e6;
        }
    }

    /** The gap bucket of {@code gapMs}; past the buckets when the gap is unknown (negative). */
    static int gapSlot(long gapMs) {
        if (gapMs < 0) return GAP_BUCKETS_MS.length;
        int b = 0;
        while (b + 1 < GAP_BUCKETS_MS.length && gapMs >= GAP_BUCKETS_MS[b + 1]) b++;
        return b;
    }

    /** One window's row of series {@code requests}; the window's histogram starts over. */
    Map<String, Double> sample(double seconds) {
        Map<String, Double> row = new LinkedHashMap<>();
        synchronized (foldLock) {
            log.drainAll();
            windowRow(row, seconds);
            window.reset();
            windowMaxUs = 0;
            windowSumUs = 0;
            errors = 0;
        }
        return row;
    }

    private void windowRow(Map<String, Double> row, double seconds) {
        Histogram h = window;
        long n = h.getTotalCount();
        row.put("rps", n / seconds);
        row.put("targetRps", Double.NaN);  // server side: nobody intended a rate here
        row.put("p50Ms", n == 0 ? Double.NaN : h.getValueAtPercentile(50) / 1e3);
        row.put("p90Ms", n == 0 ? Double.NaN : h.getValueAtPercentile(90) / 1e3);
        row.put("p99Ms", n == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1e3);
        // The histogram keeps two digits; the window's maximum and mean are kept exact beside it.
        row.put("maxMs", n == 0 ? Double.NaN : windowMaxUs / 1e3);
        row.put("meanMs", n == 0 ? Double.NaN : (double) windowSumUs / n / 1e3);
        row.put("errors", (double) errors);
        // In the container when the window closed, as the load generator counts its own.
        row.put("inFlight", (double) (log.countAbove(DEPTH) + virtualInFlight.sum() + asyncInFlight.sum()));
    }

    /** Rings its log drains: one per platform thread that served a request, none per virtual thread. */
    int ringsKept() {
        return log.ringCount();
    }

    /** Rows of table {@code routes}, busiest first. */
    List<Map<String, Object>> routeRows() {
        synchronized (foldLock) {
            log.drainAll();
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
            log.drainAll();
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
