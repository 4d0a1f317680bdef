package io.culprit.load;

import java.time.Duration;
import java.util.List;

/**
 * What to run: the requests, the model (open: an arrival-rate schedule; closed: C connections each
 * sending its next request when the previous one answers), how long, and how to slice the result.
 * Immutable; build with {@link #open} or {@link #closed} and the {@code with*} methods.
 */
public final class LoadPlan {

    /** Open: requests arrive on a schedule whatever the server does. Closed: a fixed set of busy connections. */
    public enum Model { OPEN, CLOSED }

    /** Open-model pool cap when none is given: enough for 1,000 rps at 100 ms without queueing. */
    public static final int DEFAULT_OPEN_CONNECTIONS = 100;

    private final Model model;
    private final RateSchedule schedule;
    private final List<RequestSpec> requests;
    private final int connections;
    private final Duration duration;
    private final Duration warmup;
    private final Duration window;
    private final Duration timeout;
    private final int threads;
    private final boolean localOnly;

    private LoadPlan(Model model, RateSchedule schedule, List<RequestSpec> requests, int connections,
                     Duration duration, Duration warmup, Duration window, Duration timeout, int threads,
                     boolean localOnly) {
        this.model = model;
        this.schedule = schedule;
        this.requests = List.copyOf(requests);
        this.connections = connections;
        this.duration = duration;
        this.warmup = warmup;
        this.window = window;
        this.timeout = timeout;
        this.threads = threads;
        this.localOnly = localOnly;
        if (this.requests.isEmpty()) {
            throw new LoadException("no request to send: give a URL or a request file");
        }
        String authority = authority(this.requests.get(0));
        for (RequestSpec r : this.requests) {
            if (!authority(r).equals(authority)) {
                throw new LoadException("all URLs must target one host:port, got " + authority + " and " + authority(r));
            }
        }
        if (connections < 1) {
            throw new LoadException("connections must be >= 1, got " + connections);
        }
        requirePositive("duration", duration);
        requirePositive("window", window);
        requirePositive("timeout", timeout);
        if (warmup.isNegative()) {
            throw new LoadException("warmup must be >= 0");
        }
        if (threads < 0) {
            throw new LoadException("threads must be >= 0 (0 = automatic)");
        }
    }

    /** Open model over {@code schedule}; the measured duration is the schedule's length. */
    public static LoadPlan open(RateSchedule schedule, List<RequestSpec> requests) {
        return new LoadPlan(Model.OPEN, schedule, requests, DEFAULT_OPEN_CONNECTIONS,
                Duration.ofNanos(schedule.totalNanos()), Duration.ZERO, Duration.ofSeconds(15),
                Duration.ofSeconds(10), 0, false);
    }

    /** Closed model: {@code connections} connections, each with one request in flight, for {@code duration}. */
    public static LoadPlan closed(int connections, Duration duration, List<RequestSpec> requests) {
        return new LoadPlan(Model.CLOSED, null, requests, connections, duration, Duration.ZERO,
                Duration.ofSeconds(15), Duration.ofSeconds(10), 0, false);
    }

    /** Open model: most connections the pool opens; closed model: the number of connections. */
    public LoadPlan withConnections(int c) {
        return new LoadPlan(model, schedule, requests, c, duration, warmup, window, timeout, threads, localOnly);
    }

    /** Unrecorded run-in before the measured duration (open model: at the schedule's starting rate). */
    public LoadPlan withWarmup(Duration w) {
        return new LoadPlan(model, schedule, requests, connections, duration, w, window, timeout, threads, localOnly);
    }

    /** Length of the per-window table's rows and of the listener's window callbacks. */
    public LoadPlan withWindow(Duration w) {
        return new LoadPlan(model, schedule, requests, connections, duration, warmup, w, timeout, threads, localOnly);
    }

    /** A request without its response after this long counts as a timeout error and its connection is closed. */
    public LoadPlan withTimeout(Duration t) {
        return new LoadPlan(model, schedule, requests, connections, duration, warmup, window, t, threads, localOnly);
    }

    /** Event-loop threads; 0 picks min(cores, connections). */
    public LoadPlan withThreads(int t) {
        return new LoadPlan(model, schedule, requests, connections, duration, warmup, window, timeout, t, localOnly);
    }

    /** Refuse any target that does not resolve to a loopback address. */
    public LoadPlan withLocalOnly(boolean on) {
        return new LoadPlan(model, schedule, requests, connections, duration, warmup, window, timeout, threads, on);
    }

    public Model model() { return model; }
    /** The measured schedule (open model only, null for closed), without warmup. */
    public RateSchedule schedule() { return schedule; }
    public List<RequestSpec> requests() { return requests; }
    public int connections() { return connections; }
    public Duration duration() { return duration; }
    public Duration warmup() { return warmup; }
    public Duration window() { return window; }
    public Duration timeout() { return timeout; }
    public int threads() { return threads; }
    public boolean localOnly() { return localOnly; }

    /** Threads actually used: never more than connections, never more than the cores. */
    public int effectiveThreads() {
        int t = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        return Math.max(1, Math.min(t, connections));
    }

    public String host() { return requests.get(0).uri().getHost(); }
    public int port() { return requests.get(0).port(); }

    private static String authority(RequestSpec r) {
        return r.uri().getHost().toLowerCase(java.util.Locale.ROOT) + ":" + r.port();
    }

    private static void requirePositive(String what, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new LoadException(what + " must be > 0");
        }
    }
}
