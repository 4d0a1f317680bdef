package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.List;

/**
 * Apache HttpClient 5 (classic API): every {@code execute(...)} of a {@code CloseableHttpClient}
 * ends in the protected {@code doExecute(HttpHost, ClassicHttpRequest, HttpContext)} of
 * {@code InternalHttpClient} (what {@code HttpClients.custom()...build()} makes) or of
 * {@code MinimalHttpClient}. It returns once the response head has arrived (the body is streamed
 * afterwards by the caller), so its duration is the round trip, retries and redirects included.
 * The classes live in the application's loader, so the request and response are read through
 * {@link Reflect}; a 5xx answer counts as a failed call. {@code InternalExecRuntime.acquireEndpoint}
 * is timed too: the wait for a connection from the client's own pool, counted in the call's
 * {@code poolWaitMs}.
 */
final class ApacheHttpHooks {

    static final String INTERNAL_CLIENT = "org.apache.hc.client5.http.impl.classic.InternalHttpClient";
    static final String MINIMAL_CLIENT = "org.apache.hc.client5.http.impl.classic.MinimalHttpClient";
    static final String EXEC_RUNTIME = "org.apache.hc.client5.http.impl.classic.InternalExecRuntime";
    private static final String DO_EXECUTE = "(Lorg/apache/hc/core5/http/HttpHost;Lorg/apache/hc/core5/http/ClassicHttpRequest;";

    private ApacheHttpHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        List<Hook> h = new ArrayList<>();
        for (String client : new String[] {INTERNAL_CLIENT, MINIMAL_CLIENT}) {
            h.add(new Hook(client, "doExecute", DO_EXECUTE, Hook.TIMED | Hook.ARG0 | Hook.ARG1 | Hook.RETURNED) {
                @Override
                public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                    long end = System.nanoTime();
                    if (calls.insideSpringRequest()) return;  // RestTemplate/RestClient on this client: Spring's hook counts it
                    Object method = Reflect.call(arg1, "getMethod");
                    String uri = uri(arg0, arg1);
                    Throwable error = thrown;
                    if (error == null && Reflect.number(returned, "getCode") >= 500) error = JdkHttpHooks.ServerError.INSTANCE;
                    calls.record(end, "http", method + " " + SqlText.normalizeUrl(uri), method + " " + uri, start, error);
                }
            });
        }
        // The wait for a pooled connection (5 per route and 25 in all by default), inside the call
        // recorded next on this thread, by this hook or Spring's.
        h.add(new Hook(EXEC_RUNTIME, "acquireEndpoint", "(", Hook.TIMED) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                calls.poolWait(System.nanoTime() - start);
            }
        });
        return h;
    }

    /**
     * The request's absolute URI: a request made with a full URL carries it; one made with a path
     * only gets its scheme and authority from the {@code HttpHost} passed beside it.
     */
    private static String uri(Object host, Object request) {
        Object uri = Reflect.call(request, "getUri");
        String u = uri != null ? uri.toString() : String.valueOf(Reflect.call(request, "getRequestUri"));
        return u.startsWith("/") && host != null ? host + u : u;
    }
}
