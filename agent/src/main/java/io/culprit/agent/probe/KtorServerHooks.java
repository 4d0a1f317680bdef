package io.culprit.agent.probe;

import java.util.List;

/**
 * Requests of Ktor's Netty engine (HTTP/1.1). Ktor runs a request's pipeline as a coroutine on its
 * call threads, so no method call spans it: the request is timed from the construction of its
 * {@code NettyHttp1ApplicationCall} (on the event loop that read its head) to the engine's
 * {@code NettyApplicationCall.finish()}, which the engine pipeline's last step calls once the
 * application's pipeline has run and the response is sent (a streamed body may still be
 * writing). The start and route ride in a {@link PendingRequests} table keyed by the call. The
 * route is the raw path with numeric segments folded ({@link PathRoutes}): Ktor's routing keeps the
 * matched route on the call's attributes, which the engine does not read. A 5xx status, read at
 * the end, marks it failed. HTTP/2 calls ({@code NettyHttp2ApplicationCall}) are not counted.
 */
final class KtorServerHooks {

    static final String HTTP1_CALL = "io.ktor.server.netty.http1.NettyHttp1ApplicationCall";
    static final String CALL = "io.ktor.server.netty.NettyApplicationCall";

    private final PendingRequests pending;
    private final Getter httpRequest = new Getter("getHttpRequest");
    private final Getter httpMethod = new Getter("method");
    private final Getter name = new Getter("name");
    private final Getter uri = new Getter("uri");
    private final Getter response = new Getter("getResponse");
    private final Getter status = new Getter("status");
    private final Getter value = new Getter("getValue");

    KtorServerHooks(RequestProbe requests) {
        this.pending = new PendingRequests(requests);
    }

    List<Hook> hooks() {
        return List.of(
                new Hook(HTTP1_CALL, "<init>", "(Lio/ktor/server/application/Application;", Hook.EXIT | Hook.SELF) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        if (thrown != null) return;
                        Object head = httpRequest.call(self);
                        pending.start(self, System.nanoTime(), name.call(httpMethod.call(head)), uri.call(head));
                    }
                },
                new Hook(CALL, "finish*", "()", Hook.ENTER | Hook.SELF) {
                    @Override
                    public long probeEnter(int id, Object self, Object arg0) {
                        long end = System.nanoTime();
                        if (pending.pending(self)) pending.end(self, end, value.number(status.call(response.call(self))) >= 500);
                        return 0L;
                    }
                });
    }
}
