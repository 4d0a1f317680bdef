package io.culprit.agent.probe;

import java.util.List;

/**
 * Outbound HTTP through Vert.x's HTTP client (and Vert.x Web's WebClient, which rides on it). A
 * request object is made once the client's pool has lent it a connection
 * ({@code HttpClientRequestImpl}'s constructor), and its response ends at
 * {@code HttpClientResponseImpl.handleEnd} on the connection's event loop; a request that fails
 * ends at its {@code handleException}. The call is timed between them, its start carried in a
 * {@link PendingCalls} table keyed by the request, and named at its end (the path is set after the
 * request is made) by its method and URL with numeric segments folded. The pool's wait for a connection comes before and is not the call's. A
 * 5xx counts as failed. The request is made in the pool's callback, where no application frame is
 * on the stack, so a target's call site is unknown unless it first ran where the caller made it.
 * Vert.x 5.0 and 4.x name these classes alike; 5.1 ends a response elsewhere and is not timed.
 */
final class VertxHttpClientHooks {

    static final String REQUEST = "io.vertx.core.http.impl.HttpClientRequestImpl";
    static final String RESPONSE = "io.vertx.core.http.impl.HttpClientResponseImpl";

    private final CallProbe calls;
    private final PendingCalls pending = new PendingCalls();
    private final Getter httpMethod = new Getter("getMethod");
    private final Getter absoluteUri = new Getter("absoluteURI");

    VertxHttpClientHooks(CallProbe calls) {
        this.calls = calls;
    }

    List<Hook> hooks() {
        return List.of(
                // One constructor each: Vert.x 4's short one delegates to its full one, and both would note the start.
                started("(Lio/vertx/core/http/HttpConnection;Lio/vertx/core/http/impl/HttpClientStream;)"),
                started("(Lio/vertx/core/http/impl/HttpClientStream;Lio/vertx/core/impl/future/PromiseInternal;Lio/vertx/core/http/HttpMethod;"),
                new Hook(RESPONSE, "handleEnd", "(", Hook.ENTER | Hook.SELF) {
                    @Override
                    public long probeEnter(int id, Object self, Object arg0) {
                        long now = System.nanoTime();
                        Object status = Reflect.cachedField(self, "statusCode");
                        boolean failed = status instanceof Integer && (Integer) status >= 500;
                        end(Reflect.cachedField(self, "request"), now, failed ? JdkHttpHooks.ServerError.INSTANCE : null);
                        return 0L;
                    }
                },
                new Hook(REQUEST, "handleException", "(Ljava/lang/Throwable;)", Hook.ENTER | Hook.SELF | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object error) {
                        end(self, System.nanoTime(), error instanceof Throwable ? (Throwable) error : JdkHttpHooks.ServerError.INSTANCE);
                        return 0L;
                    }
                });
    }

    /** The request's constructor of this descriptor notes its start: only the start, as its path is set after it is made. */
    private Hook started(String descriptorPrefix) {
        return new Hook(REQUEST, "<init>", descriptorPrefix, Hook.EXIT | Hook.SELF) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                pending.put(self, System.nanoTime());
            }
        };
    }

    /** A request another hook times at its own level (a REST client's invocation): not this hook's call. */
    void forget(Object request) {
        if (request != null) pending.take(request);
    }

    private void end(Object request, long endNs, Throwable failure) {
        if (request == null) return;
        long start = pending.take(request);
        if (start == PendingCalls.NONE) return;
        Object url = absoluteUri.call(request);
        if (url == null) return;
        CallStats stats = calls.stats("http", httpMethod.call(request) + " " + SqlText.normalizeUrl(url.toString()));
        if (stats.reactiveClient == null) stats.reactiveClient = "vertx-http-client";
        // Recorded on the connection's event loop, which the asynchronous call does not block.
        calls.record(endNs, stats, stats.target, start, failure, false);
    }
}
