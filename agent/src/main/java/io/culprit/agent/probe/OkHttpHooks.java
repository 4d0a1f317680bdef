package io.culprit.agent.probe;

import java.util.List;

/**
 * OkHttp 4: both {@code Call.execute()} and {@code Call.enqueue(...)} run the call in
 * {@code RealCall.getResponseWithInterceptorChain} (named {@code ...$okhttp} in the bytecode: a
 * Kotlin internal method), on the caller's thread or on the dispatcher's, so one hook times both:
 * interceptors, connection, retries and redirects, up to the response head (the body is read
 * afterwards). The call's request and the response are read through {@link Reflect}; a 5xx
 * answer counts as a failed call. An enqueued call runs on the dispatcher's threads, whose stacks
 * hold no application frame, so {@code enqueue} looks the target up on the caller's thread first:
 * its first call's site is the code that enqueued it (a blind service, session 45, fanned out six
 * enqueued calls a request, and its calls table named no caller).
 */
final class OkHttpHooks {

    static final String REAL_CALL = "okhttp3.internal.connection.RealCall";

    private OkHttpHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        return List.of(new Hook(REAL_CALL, "enqueue", "(Lokhttp3/Callback;)", Hook.ENTER | Hook.SELF) {
            @Override
            public long probeEnter(int id, Object self, Object callback) {
                calls.stats("http", target(Reflect.call(self, "request")));
                return 0L;
            }
        }, new Hook(REAL_CALL, "getResponseWithInterceptorChain*", "()", Hook.TIMED | Hook.SELF | Hook.RETURNED) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                if (calls.insideSpringRequest()) return;  // RestTemplate/RestClient on OkHttp: Spring's hook counts it
                Object request = Reflect.call(self, "request");
                Object method = Reflect.call(request, "method");
                String url = String.valueOf(Reflect.call(request, "url"));
                Throwable error = thrown;
                if (error == null && Reflect.number(returned, "code") >= 500) error = JdkHttpHooks.ServerError.INSTANCE;
                calls.record(end, "http", method + " " + SqlText.normalizeUrl(url), method + " " + url, start, error);
            }
        });
    }

    private static String target(Object request) {
        return Reflect.call(request, "method") + " " + SqlText.normalizeUrl(String.valueOf(Reflect.call(request, "url")));
    }
}
