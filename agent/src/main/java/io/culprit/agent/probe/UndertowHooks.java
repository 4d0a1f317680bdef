package io.culprit.agent.probe;

import java.util.List;

/**
 * Undertow's requests at {@code Connectors.executeRootHandler}, which runs the handler chain
 * for a request, first on the connection's I/O thread and, when a handler dispatches (the
 * servlet container always does, to a worker), again on the worker. Only the call that keeps
 * the request counts it: one whose request was handed on ({@code unDispatch} in its
 * dispatch branch, or reads resumed for a non-blocking handler to call back later) counts
 * nothing, so a servlet request is counted once, on its worker, filters and servlet and the
 * response's end included. An asynchronous servlet request is counted by the dispatch that
 * ends it ({@code AsyncContext.dispatch}); one completed from another thread is not counted.
 * The worker pool (XNIO's) is found by the pool probe at its {@code execute}.
 */
final class UndertowHooks {

    static final String CONNECTORS = "io.undertow.server.Connectors";
    static final String EXCHANGE = "io.undertow.server.HttpServerExchange";

    private UndertowHooks() { }

    static List<Hook> hooks(RequestProbe requests) {
        Getter status = new Getter("getStatusCode");
        return List.of(
                new ContainerHook(requests, CONNECTORS, "executeRootHandler",
                        "(Lio/undertow/server/HttpHandler;Lio/undertow/server/HttpServerExchange;)", Hook.ARG1) {
                    @Override
                    double status(Object self, Object arg0, Object arg1) {
                        return status.number(arg1);
                    }
                },
                handOff(requests, "unDispatch"),
                handOff(requests, "runResumeReadWrite"));
    }

    /** An exchange method that executeRootHandler calls when the request goes on elsewhere. */
    private static Hook handOff(RequestProbe requests, String method) {
        return new Hook(EXCHANGE, method, "()", Hook.ENTER) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                requests.handOff();
                return 0L;
            }
        };
    }
}
