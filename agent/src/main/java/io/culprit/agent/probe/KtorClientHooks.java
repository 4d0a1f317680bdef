package io.culprit.agent.probe;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ktor's HTTP client (Ktor 2 and 3, any engine culprit does not time underneath). Its calls are
 * suspend functions: a method's entry and exit bracket only the stretch up to the first
 * suspension, so no single method times a call. Two constructions do, both once per attempt:
 * {@code HttpRequestData}, which the client builds from the request just before it hands it to
 * the engine, and {@code HttpClientCall(client, requestData, responseData)}, which it builds from
 * the engine's answer (the response head: the body is read afterwards). The first runs on the
 * caller's thread with the application's frames still on the stack (the pipeline has not
 * suspended yet), so it looks the target up there and its call site is the application's; the
 * start waits in a {@link PendingCalls} table keyed by the request data until the second. A call
 * that fails (a refused connection, a timeout) never gets its HttpClientCall and is not recorded.
 * A 5xx answer counts as failed.
 *
 * <p>The call is suspended, not blocking: the coroutine's thread (a Ktor server's call thread, an
 * event loop) is free meanwhile, so the call never counts as blocking an event loop. A caller that
 * blocks for it ({@code runBlocking}) parks, and that park is what shows (the locks table).
 * Engines that run on a client culprit times itself (OkHttp's, the JDK's HttpClient) are left to
 * that client's hook, so a call counts once.
 */
final class KtorClientHooks {

    static final String REQUEST_DATA = "io.ktor.client.request.HttpRequestData";
    static final String CLIENT_CALL = "io.ktor.client.call.HttpClientCall";
    /** Engines whose transport has its own hook ({@link OkHttpHooks}, {@link JdkHttpHooks}). */
    static final List<String> TIMED_BENEATH = List.of("io.ktor.client.engine.okhttp.", "io.ktor.client.engine.java.");

    private KtorClientHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        PendingCalls pending = new PendingCalls();
        Getter engine = new Getter("getEngine");
        ConcurrentHashMap<Class<?>, Boolean> timedBeneath = new ConcurrentHashMap<>();
        return List.of(new Hook(REQUEST_DATA, "<init>", "(", Hook.EXIT | Hook.SELF) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (thrown == null) pending.put(self, System.nanoTime(), calls.stats("http", target(self)));
            }
        }, new Hook(CLIENT_CALL, "<init>", "(Lio/ktor/client/HttpClient;Lio/ktor/client/request/HttpRequestData;", Hook.EXIT | Hook.SELF | Hook.ARG0 | Hook.ARG1) {
            @Override
            public void probeExit(int id, long start, Object self, Object client, Object requestData, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                Object e = engine.call(client);
                if (e != null && timedBeneath.computeIfAbsent(e.getClass(), KtorClientHooks::timedBeneath)) {
                    pending.take(requestData);
                    return;
                }
                Throwable failure = thrown;
                if (failure == null && Reflect.number(Reflect.call(Reflect.call(self, "getResponse"), "getStatus"), "getValue") >= 500) {
                    failure = JdkHttpHooks.ServerError.INSTANCE;
                }
                calls.endPending(pending, requestData, end, failure);
            }
        });
    }

    static boolean timedBeneath(Class<?> engine) {
        for (String prefix : TIMED_BENEATH) if (engine.getName().startsWith(prefix)) return true;
        return false;
    }

    /** "GET http://host:port/path" with the path's ids folded, as the other HTTP clients' targets. */
    private static String target(Object requestData) {
        Object method = Reflect.call(Reflect.call(requestData, "getMethod"), "getValue");
        return method + " " + SqlText.normalizeUrl(String.valueOf(Reflect.call(requestData, "getUrl")));
    }
}
