package io.culprit.agent.probe;

import java.util.List;

/**
 * Requests of Grizzly's HTTP server (Jersey's {@code GrizzlyHttpServerFactory}, GlassFish, plain
 * Grizzly handlers) at {@code HttpHandler.runService(Request, Response)}: it runs the handler's
 * {@code service} on the thread that parsed the request and returns true when the response is
 * finished, or hands the request to the handler's executor (Grizzly's worker pool, when the
 * request was parsed on a selector thread) or leaves it suspended for an asynchronous handler
 * (Jersey's {@code @Suspended}), and returns false: then it counts nothing there. A handed-on
 * request is counted by the task that runs it on the worker ({@code HttpHandler$1.run}); an
 * asynchronous one is not counted. The route is the raw path with
 * numeric segments folded ({@link PathRoutes}). A blind Jersey service on Grizzly (session 46) read
 * "share of request time unknown" on every call: no request probe saw its requests.
 */
final class GrizzlyHooks {

    static final String HANDLER = "org.glassfish.grizzly.http.server.HttpHandler";
    /** The task runService hands to the handler's executor: it runs the service there. */
    static final String DISPATCHED = "org.glassfish.grizzly.http.server.HttpHandler$1";
    static final String CHAIN_CONTEXT = "org.glassfish.grizzly.filterchain.FilterChainContext";

    private final RequestProbe requests;
    private final PathRoutes routes;
    private final Getter httpMethod = new Getter("getMethod");
    private final Getter methodName = new Getter("getMethodString");
    private final Getter uri = new Getter("getRequestURI");
    private final Getter status = new Getter("getStatus");
    /** Per thread, a dispatched request's {response, status read at resume}. */
    private final PerThread dispatched = new PerThread(() -> new Object[2]);

    GrizzlyHooks(RequestProbe requests) {
        this.requests = requests;
        this.routes = new PathRoutes(requests);
    }

    List<Hook> hooks() {
        return List.of(new ContainerHook(requests, DISPATCHED, "run", "()", Hook.SELF) {
            // The request is read at the entry and the status when the task resumes the filter chain: by the
            // task's exit the chain has finished the response and recycled both.
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                long start = super.probeEnter(id, self, arg0);
                routed(Reflect.cachedField(self, "val$request"));
                Object[] slot = (Object[]) dispatched.get();
                slot[0] = Reflect.cachedField(self, "val$response");
                slot[1] = null;
                return start;
            }

            @Override
            double status(Object self, Object arg0, Object arg1) {
                Object[] slot = (Object[]) dispatched.get();
                Object s = slot[1];
                slot[0] = null;
                slot[1] = null;
                return s instanceof Integer ? (Integer) s : Double.NaN;
            }
        }, new Hook(CHAIN_CONTEXT, "resume", "()", Hook.ENTER) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                Object[] slot = (Object[]) dispatched.get();
                if (slot[0] != null) {
                    slot[1] = (int) status.number(slot[0]);  // boxed from Integer's cache for every real status
                    slot[0] = null;
                }
                return 0L;
            }
        }, new ContainerHook(requests, HANDLER, "runService",
                "(Lorg/glassfish/grizzly/http/server/Request;Lorg/glassfish/grizzly/http/server/Response;)",
                Hook.ARG0 | Hook.ARG1 | Hook.RETURNED) {
            @Override
            public void probeExit(int id, long start, Object self, Object request, Object response, Object returned, Throwable thrown) {
                // Handed on (to the handler's executor) or suspended: finished elsewhere, not counted here.
                if (Boolean.FALSE.equals(returned)) requests.handOff();
                else routed(request);
                super.probeExit(id, start, self, request, response, returned, thrown);
            }

            @Override
            double status(Object self, Object request, Object response) {
                return status.number(response);
            }
        });
    }

    /** The request's route: its method and raw path, numeric segments folded. */
    private void routed(Object request) {
        requests.routed(routes.route(methodName.call(httpMethod.call(request)), uri.call(request)));
    }
}
