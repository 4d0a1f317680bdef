package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.List;

/**
 * Requests of Vert.x's HTTP/1 server (Vert.x Web, Quarkus' reactive routes and RESTEasy Reactive),
 * whose handlers run on an event loop and may answer later from any thread, as Reactor Netty's do
 * ({@link ReactorNettyHooks}). The connection makes one request object per request head, and calls
 * its {@code responseComplete()} once the response's last part is written, from whichever thread
 * ended the response (it then hops to the event loop and calls itself again, which finds nothing
 * pending). So a request is timed from that constructor to the first responseComplete that sees it
 * as the connection's {@code responseInProgress}; a connection closed before its response ends
 * its requests as failed. Vert.x 4 and 5.0 name the classes {@code Http1xServer*}, 5.1 moved them
 * to {@code http1.Http1Server*}; both shapes are the same. HTTP/2 requests are not timed.
 */
final class VertxHooks {

    static final String REQUEST = "io.vertx.core.http.impl.Http1xServerRequest";
    static final String CONNECTION = "io.vertx.core.http.impl.Http1xServerConnection";
    static final String REQUEST_51 = "io.vertx.core.http.impl.http1.Http1ServerRequest";
    static final String CONNECTION_51 = "io.vertx.core.http.impl.http1.Http1ServerConnection";

    private final PendingRequests pending;
    private final Getter httpMethod = new Getter("method");
    private final Getter path = new Getter("path");
    private final Getter response = new Getter("response");
    private final Getter status = new Getter("getStatusCode");

    VertxHooks(RequestProbe requests) {
        this.pending = new PendingRequests(requests);
    }

    List<Hook> hooks() {
        List<Hook> hooks = new ArrayList<>();
        for (String[] names : new String[][] {{REQUEST, CONNECTION}, {REQUEST_51, CONNECTION_51}}) {
            String connection = names[1];
            hooks.add(new Hook(names[0], "<init>", "(L" + connection.replace('.', '/') + ";", Hook.EXIT | Hook.SELF) {
                @Override
                public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                    pending.start(self, System.nanoTime(), httpMethod.call(self), path.call(self));
                }
            });
            hooks.add(new Hook(connection, "responseComplete", "()", Hook.ENTER | Hook.SELF) {
                @Override
                public long probeEnter(int id, Object self, Object arg0) {
                    end(Reflect.cachedField(self, "responseInProgress"), System.nanoTime(), false);
                    return 0L;
                }
            });
            hooks.add(new Hook(connection, "handleClosed", "()", Hook.ENTER | Hook.SELF) {
                @Override
                public long probeEnter(int id, Object self, Object arg0) {
                    long now = System.nanoTime();
                    end(Reflect.cachedField(self, "responseInProgress"), now, true);
                    end(Reflect.cachedField(self, "requestInProgress"), now, true);
                    return 0L;
                }
            });
        }
        return hooks;
    }

    /** Ends the request if it is still pending: a 5xx, or a connection closed under it, failed. */
    private void end(Object request, long endNs, boolean closed) {
        if (pending.pending(request)) pending.end(request, endNs, closed || status.number(response.call(request)) >= 500);
    }
}
