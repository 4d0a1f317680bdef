package io.culprit.agent.probe;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The JDK's {@code java.net.http.HttpClient}: both {@code send} and {@code sendAsync} go through
 * the private four-argument {@code HttpClientImpl.sendAsync} (JDK 11 to 25), so one hook times
 * both, from the call to the response's completion (a callback on the returned future: the
 * synchronous send waits on that same future). A synchronous {@code send} made on an event loop's
 * thread blocks that loop for the call's time, and is counted so ({@code eventLoopMs}). It is a JDK class, woven by exact name only, in
 * a module that is given a read edge to the Bridge first ({@link Modules}); its types are the
 * JDK's, so no reflection is needed. The callback is a small allocation per outbound call,
 * which costs far less than the call.
 */
final class JdkHttpHooks {

    static final String HTTP_CLIENT_IMPL = "jdk.internal.net.http.HttpClientImpl";

    private JdkHttpHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        // The synchronous send is sendAsync and a wait on its future: on an event loop's thread, that wait blocks the loop.
        Nesting syncSend = new Nesting();
        return List.of(new Hook(HTTP_CLIENT_IMPL, "send", "(Ljava/net/http/HttpRequest;Ljava/net/http/HttpResponse$BodyHandler;)",
                Hook.TIMED) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                syncSend.enter();
                return 0L;
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                syncSend.exit();
            }
        }, new Hook(HTTP_CLIENT_IMPL, "sendAsync",
                "(Ljava/net/http/HttpRequest;Ljava/net/http/HttpResponse$BodyHandler;Ljava/net/http/HttpResponse$PushPromiseHandler;Ljava/util/concurrent/Executor;)", Hook.TIMED | Hook.ARG0 | Hook.RETURNED) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                if (!(arg0 instanceof HttpRequest) || calls.insideSpringRequest()) return;
                HttpRequest request = (HttpRequest) arg0;
                if (calls.isWebClientExchange(request.uri().toString())) return;  // WebClient on the JDK's connector
                // Here, on the caller's thread: the completion below runs on the client's.
                CallStats stats = calls.stats("http", request.method() + " " + SqlText.normalizeUrl(String.valueOf(request.uri())));
                String text = request.method() + " " + request.uri();
                if (thrown != null || !(returned instanceof CompletableFuture)) {
                    calls.record(end, stats, text, start, thrown);
                    return;
                }
                boolean held = calls.holdsConnection();
                boolean blockedLoop = syncSend.inside() && calls.onEventLoop();
                ((CompletableFuture<?>) returned).whenComplete((response, failure) -> {
                    long done = System.nanoTime();
                    Throwable error = failure;
                    if (error == null && response instanceof HttpResponse && ((HttpResponse<?>) response).statusCode() >= 500) {
                        error = ServerError.INSTANCE;
                    }
                    calls.record(done, stats, text, start, error, held, blockedLoop);
                });
            }
        });
    }

    /**
     * Marks a call its dependency's server answered with an error (an HTTP 5xx, a database's
     * ErrorResponse) as failed; never thrown, so it needs no stack trace.
     */
    static final class ServerError extends Exception {
        static final ServerError INSTANCE = new ServerError();

        private ServerError() {
            super("5xx", null, false, false);
        }
    }
}
