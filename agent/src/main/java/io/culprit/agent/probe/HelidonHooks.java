package io.culprit.agent.probe;

import java.util.List;

/**
 * Requests of Helidon 4's WebServer (Helidon SE, and MP on top of it). Every request, HTTP/1 or
 * HTTP/2, is routed by {@code HttpRoutingImpl.route(ctx, request, response)} on the connection's
 * thread (a virtual thread by default), filters, error handlers and the handler inside, and the
 * handler must answer before it returns: so it is timed as a servlet container's entry point is.
 * The response is the call's third argument, which a hook does not read; the routing executor
 * that route() makes first keeps it, so that constructor leaves itself in a per-thread slot for
 * the exit to read the status from. The route is the raw path with numeric segments folded
 * ({@link PathRoutes}): the pattern Helidon matched is the innermost rule's, without the prefixes
 * of the services around it. No worker pool: a virtual thread per connection.
 */
final class HelidonHooks {

    static final String ROUTING = "io.helidon.webserver.http.HttpRoutingImpl";
    static final String EXECUTOR = "io.helidon.webserver.http.HttpRoutingImpl$RoutingExecutor";

    private final RequestProbe requests;
    private final PathRoutes routes;
    /** Per thread, the routing executor its current route() made: {executor}. */
    private final PerThread executor = new PerThread(() -> new Object[1]);
    private final Getter prologue = new Getter("prologue");
    private final Getter httpMethod = new Getter("method");
    private final Getter text = new Getter("text");
    private final Getter uriPath = new Getter("uriPath");
    private final Getter rawPath = new Getter("rawPath");
    private final Getter status = new Getter("status");
    private final Getter code = new Getter("code");

    HelidonHooks(RequestProbe requests) {
        this.requests = requests;
        this.routes = new PathRoutes(requests);
    }

    List<Hook> hooks() {
        return List.of(
                new Hook(EXECUTOR, "<init>", "(", Hook.EXIT | Hook.SELF) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        ((Object[]) executor.get())[0] = self;
                    }
                },
                new ContainerHook(requests, ROUTING, "route",
                        "(Lio/helidon/webserver/ConnectionContext;Lio/helidon/webserver/http/RoutingRequest;", Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        long end = System.nanoTime();
                        Object p = prologue.call(arg1);
                        requests.routed(routes.route(text.call(httpMethod.call(p)), rawPath.call(uriPath.call(p))));
                        Object[] slot = (Object[]) executor.get();
                        Object routing = slot[0];
                        slot[0] = null;
                        double s = routing == null ? Double.NaN : code.number(status.call(Reflect.cachedField(routing, "response")));
                        requests.containerExit(start, end, s, thrown);
                    }

                    @Override
                    double status(Object self, Object arg0, Object arg1) {
                        return Double.NaN;  // read in probeExit, from the routing executor
                    }
                });
    }
}
