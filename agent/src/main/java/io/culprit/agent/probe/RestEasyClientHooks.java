package io.culprit.agent.probe;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Outbound HTTP through RESTEasy Reactive's client (Quarkus' REST client, {@code @RegisterRestClient}
 * interfaces and its JAX-RS client), which sends over Vert.x's HTTP client. Every invocation makes a
 * {@code RestClientRequestContext} on the caller's thread, whose result future completes on the
 * event loop once the response (and its body) is read. So the call is timed from that construction
 * to the future's completion, with its call site and the pooled connection the caller holds taken
 * there: on the loop, where {@link VertxHttpClientHooks} would time the same request, neither is
 * known, so that hook is told to forget the Vert.x request once the context is handed it. Named
 * like Vert.x's calls, by method and URL with numeric segments folded; 5xx and failures failed.
 * A small allocation per outbound call (the completion callback), as for the JDK's HttpClient.
 */
final class RestEasyClientHooks {

    static final String CONTEXT = "org.jboss.resteasy.reactive.client.impl.RestClientRequestContext";

    private final CallProbe calls;
    private final VertxHttpClientHooks vertx;
    private final Getter httpMethod = new Getter("getHttpMethod");
    private final Getter uri = new Getter("getUri");
    private final Getter result = new Getter("getResult");
    private final Getter status = new Getter("getStatus");

    RestEasyClientHooks(CallProbe calls, VertxHttpClientHooks vertx) {
        this.calls = calls;
        this.vertx = vertx;
    }

    List<Hook> hooks() {
        return List.of(
                new Hook(CONTEXT, "<init>", "(", Hook.EXIT | Hook.SELF) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        started(self, System.nanoTime());
                    }
                },
                new Hook(CONTEXT, "setHttpClientRequest", "(Lio/vertx/core/http/HttpClientRequest;)", Hook.ENTER | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object request) {
                        vertx.forget(request);
                        return 0L;
                    }
                });
    }

    private void started(Object context, long startNs) {
        Object future = result.call(context), target = uri.call(context);
        if (!(future instanceof CompletableFuture) || target == null) return;
        CallStats stats = calls.stats("http", httpMethod.call(context) + " " + SqlText.normalizeUrl(target.toString()));
        boolean held = calls.holdsConnection();
        ((CompletableFuture<?>) future).whenComplete((response, failure) -> {
            Throwable failed = failure != null ? failure : status.number(response) >= 500 ? JdkHttpHooks.ServerError.INSTANCE : null;
            calls.record(System.nanoTime(), stats, stats.target, startNs, failed, held);
        });
    }
}
