package io.culprit.agent.probe;

import java.util.List;

/**
 * Requests of Reactor Netty's HTTP server (Spring WebFlux's default), which has no request call
 * to time: a request's handler returns a Publisher at once, and the response is written when it
 * completes, usually on another thread. Reactor Netty makes one {@code HttpServerOperations} per
 * request when its head arrives, and ends every connection operation with
 * {@code ChannelOperations.terminate()}, after the last of the response is written or when the
 * client goes away. So a request is timed from that constructor to its terminate, its start and
 * route carried between them in a {@link PendingRequests} table keyed by the operations object, and
 * counted in flight meanwhile. A 5xx status, read at the end, marks it failed.
 *
 * <p>The route is the request's path with numeric segments folded ({@link PathRoutes}), not
 * WebFlux's matched pattern: the pattern is set on Spring's exchange, which the server's
 * operations object does not reach. No handler time is known, so none is split off.
 */
final class ReactorNettyHooks {

    static final String SERVER_OPERATIONS = "reactor.netty.http.server.HttpServerOperations";
    static final String CHANNEL_OPERATIONS = "reactor.netty.channel.ChannelOperations";
    private ReactorNettyHooks() { }

    static List<Hook> hooks(RequestProbe requests) {
        PendingRequests pending = new PendingRequests(requests);
        Getter httpMethod = new Getter("method");
        Getter path = new Getter("fullPath");
        Getter status = new Getter("status");
        Getter code = new Getter("code");
        return List.of(
                new Hook(SERVER_OPERATIONS, "<init>", "(Lreactor/netty/Connection;", Hook.EXIT | Hook.SELF) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        pending.start(self, System.nanoTime(), httpMethod.call(self), path.call(self));
                    }
                },
                new Hook(CHANNEL_OPERATIONS, "terminate", "()", Hook.ENTER | Hook.SELF) {
                    @Override
                    public long probeEnter(int id, Object self, Object arg0) {
                        long end = System.nanoTime();
                        // any other operations (a client's): not a request, and no status to read
                        if (pending.pending(self)) pending.end(self, end, code.number(status.call(self)) >= 500);
                        return 0L;
                    }
                });
    }
}
