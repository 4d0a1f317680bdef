package io.culprit.agent.probe;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes of servers whose request hook sees the raw path, not the pattern a router matched
 * (Reactor Netty's and Vert.x's servers: the router's state lives on objects the server's request
 * does not reach). The route is the path with numeric segments folded ({@link SqlText#normalizeUrl}),
 * remembered per raw path so that a request costs a lookup, not a regex.
 */
final class PathRoutes {

    /** Raw paths whose normalized route is kept: past it, a path is normalized on every request. */
    private static final int PATHS_KEPT = 4_096;

    private final RequestProbe requests;
    private final ConcurrentHashMap<String, String> routes = new ConcurrentHashMap<>();

    PathRoutes(RequestProbe requests) {
        this.requests = requests;
    }

    /** The route of a request with this method and raw path (either may be null). */
    RouteStats route(Object method, Object rawPath) {
        String p = rawPath == null ? null : routes.get(rawPath);
        if (p == null && rawPath != null) {
            p = SqlText.normalizeUrl(rawPath.toString());
            if (routes.size() < PATHS_KEPT) routes.putIfAbsent(rawPath.toString(), p);
        }
        return requests.route(method, p);
    }
}
