package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.List;

/**
 * Requests of Micronaut 4's Netty HTTP server, whose controllers run on the event loop (or on an
 * executor, {@code @ExecuteOn}) and may answer later from any thread. Every request, HTTP/1 or
 * HTTP/2, becomes a {@code NettyHttpRequest} when its head has arrived; the connection's outbound
 * access (HTTP/1's {@code PipeliningServerHandler$OutboundAccessImpl}, HTTP/2's
 * {@code MultiplexedServerHandler$MultiplexedStream}) keeps that request as its attachment and is
 * handed the response once: {@code write(response, body)}, or {@code writeHeadResponse} for HEAD.
 * So a request is timed from the request's construction to the response handed to the
 * connection (its body's bytes then go out on the loop); a 5xx is an error. A request released
 * with no response written (the connection closed under it) ends failed. Routes are the raw path
 * with numeric segments folded ({@link PathRoutes}), as for the other event-loop servers.
 */
final class MicronautHooks {

    static final String REQUEST = "io.micronaut.http.server.netty.NettyHttpRequest";
    static final String HTTP1_OUTBOUND = "io.micronaut.http.server.netty.handler.PipeliningServerHandler$OutboundAccessImpl";
    static final String HTTP2_OUTBOUND = "io.micronaut.http.server.netty.handler.MultiplexedServerHandler$MultiplexedStream";
    private static final String RESPONSE = "(Lio/netty/handler/codec/http/HttpResponse;";

    private final PendingRequests pending;
    private final Getter httpMethod = new Getter("getMethodName");
    private final Getter path = new Getter("getPath");
    private final Getter status = new Getter("status");
    private final Getter code = new Getter("code");

    MicronautHooks(RequestProbe requests) {
        this.pending = new PendingRequests(requests);
    }

    List<Hook> hooks() {
        List<Hook> hooks = new ArrayList<>();
        hooks.add(new Hook(REQUEST, "<init>", "(Lio/netty/handler/codec/http/HttpRequest;", Hook.EXIT | Hook.SELF) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (thrown != null) return;  // a malformed request: no request object, no request
                pending.start(self, System.nanoTime(), httpMethod.call(self), path.call(self));
            }
        });
        hooks.add(new Hook(REQUEST, "release", "()", Hook.ENTER | Hook.SELF) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                pending.end(self, System.nanoTime(), true);  // after a written response, already ended: nothing to do
                return 0L;
            }
        });
        for (String outbound : List.of(HTTP1_OUTBOUND, HTTP2_OUTBOUND)) {
            for (String method : List.of("write", "writeHeadResponse")) {
                hooks.add(new Hook(outbound, method, RESPONSE, Hook.ENTER | Hook.SELF | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object arg0) {
                        long now = System.nanoTime();
                        pending.end(Reflect.cachedField(self, "attachment"), now, code.number(status.call(arg0)) >= 500);
                        return 0L;
                    }
                });
            }
        }
        return hooks;
    }
}
