package io.culprit.agent.probe;

import java.util.List;

/**
 * Spring WebFlux's {@code WebClient}: every exchange, whatever its connector (Reactor Netty,
 * Jetty, HttpClient 5, the JDK's), goes through {@code ExchangeFunctions.DefaultExchangeFunction}.
 * Its {@code exchange(ClientRequest)} is called when the request's Mono is subscribed (WebClient
 * defers it), and returns a lazy Mono the probe must neither subscribe nor replace; so the call is
 * timed between that entry and the two private methods the returned Mono runs on its way out,
 * both with the same {@code ClientRequest}: {@code getLogPrefix(request, response)} when the
 * response head arrives, {@code wrapException(error, request)} when the connector fails. The
 * start waits in between in a {@link PendingCalls} table keyed by the request's identity (the
 * end comes on the connector's thread). A cancelled exchange (a timeout upstream) ends in
 * neither and is not recorded. The request and response are read through {@link Reflect}; a 5xx
 * answer counts as a failed call. On the JDK's connector the JDK HttpClient's own hook sees the
 * same call; it leaves it to this one ({@link CallProbe#isWebClientExchange}).
 */
final class WebClientHooks {

    static final String EXCHANGE_FUNCTION = "org.springframework.web.reactive.function.client.ExchangeFunctions$DefaultExchangeFunction";
    private static final String CLIENT_REQUEST = "Lorg/springframework/web/reactive/function/client/ClientRequest;";

    private WebClientHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        PendingCalls pending = new PendingCalls();
        return List.of(
                new Hook(EXCHANGE_FUNCTION, "exchange", "(" + CLIENT_REQUEST + ")", Hook.ENTER | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object request) {
                        pending.put(request, System.nanoTime());
                        String url = String.valueOf(Reflect.call(request, "url"));
                        calls.webClientExchange(url);
                        // On the subscribing thread, so the first exchange's stats get its call site, not Netty's.
                        calls.stats("http", Reflect.call(request, "method") + " " + SqlText.normalizeUrl(url));
                        return 0L;
                    }
                },
                new Hook(EXCHANGE_FUNCTION, "getLogPrefix", "(" + CLIENT_REQUEST + "Lorg/springframework/http/client/reactive/ClientHttpResponse;)",
                        Hook.EXIT | Hook.ARG0 | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object request, Object response, Object returned, Throwable thrown) {
                        long end = System.nanoTime();
                        long began = pending.take(request);
                        if (began == PendingCalls.NONE) return;
                        double status = Reflect.number(Reflect.call(response, "getStatusCode"), "value");
                        record(calls, request, began, end, status >= 500 ? JdkHttpHooks.ServerError.INSTANCE : null);
                    }
                },
                new Hook(EXCHANGE_FUNCTION, "wrapException", "(Ljava/lang/Throwable;" + CLIENT_REQUEST + ")",
                        Hook.EXIT | Hook.ARG0 | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object error, Object request, Object returned, Throwable thrown) {
                        long end = System.nanoTime();
                        long began = pending.take(request);
                        if (began == PendingCalls.NONE) return;
                        record(calls, request, began, end, error instanceof Throwable ? (Throwable) error : JdkHttpHooks.ServerError.INSTANCE);
                    }
                });
    }

    private static void record(CallProbe calls, Object request, long start, long end, Throwable error) {
        Object method = Reflect.call(request, "method");
        String url = String.valueOf(Reflect.call(request, "url"));
        // Completed on the connector's thread, often an event loop, which a non-blocking exchange does not block.
        calls.record(end, calls.stats("http", method + " " + SqlText.normalizeUrl(url)), method + " " + url, start, error, false);
    }
}
