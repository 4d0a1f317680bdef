package io.culprit.agent.probe;

/**
 * Requests of event-loop servers, which begin on one call and end on another, often on another
 * thread (Reactor Netty's, Vert.x's, Micronaut's): the start and the route ride in a
 * {@link PendingCalls} table keyed by the request's own object, so nothing is allocated per
 * request; routes are the raw path with numeric segments folded ({@link PathRoutes}).
 */
final class PendingRequests {

    /** Requests that may be in flight at once and still be timed: a reactive server holds thousands. */
    static final int IN_FLIGHT_TIMED = 16_384;

    private final RequestProbe requests;
    private final PendingCalls pending = new PendingCalls(IN_FLIGHT_TIMED);
    private final PathRoutes routes;

    PendingRequests(RequestProbe requests) {
        this.requests = requests;
        this.routes = new PathRoutes(requests);
    }

    /** The request {@code key} (method and raw path as its server gives them) began at {@code startNs}. */
    void start(Object key, long startNs, Object method, Object rawPath) {
        start(key, startNs, routes.route(method, rawPath));
    }

    /** The request {@code key} of a route its server names itself (gRPC's method) began at {@code startNs}. */
    void start(Object key, long startNs, RouteStats route) {
        if (pending.put(key, startNs, route)) requests.asyncStarted();
    }

    /** Whether {@code key} is a request begun and not yet ended (another object of the same class may be a client's). */
    boolean pending(Object key) {
        return key != null && pending.value(key) instanceof RouteStats;
    }

    /** Ends the request {@code key} if it is still pending. */
    void end(Object key, long endNs, boolean failed) {
        if (key == null) return;
        Object route = pending.value(key);
        if (!(route instanceof RouteStats)) return;
        long start = pending.take(key);
        if (start == PendingCalls.NONE) return;
        requests.asyncEnded(start, endNs, (RouteStats) route, failed);
    }
}
