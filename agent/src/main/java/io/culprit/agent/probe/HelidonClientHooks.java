package io.culprit.agent.probe;

import java.util.List;

/**
 * Helidon 4's WebClient (HTTP/1 and HTTP/2 alike): every blocking call goes through
 * {@code ClientRequestBase}, {@code request()} and {@code submit(entity)} by its private
 * {@code validateAndSubmit}, a streamed body by {@code outputStream(handler)}; each returns once
 * the response's head has arrived (redirects followed inside), the entity read afterwards, as
 * OkHttp's and Apache's calls are timed. The WebClient's generic request hands its call to the
 * protocol's request (HTTP/1's, HTTP/2's), a second ClientRequestBase on the same thread: only the
 * outermost counts. Named by the request's method and resolved URI; a 5xx answer counts as failed.
 */
final class HelidonClientHooks {

    static final String REQUEST = "io.helidon.webclient.api.ClientRequestBase";

    private final CallProbe calls;
    private final Getter httpMethod = new Getter("method");
    private final Getter text = new Getter("text");
    private final Getter resolvedUri = new Getter("resolvedUri");
    private final Getter status = new Getter("status");
    private final Getter code = new Getter("code");
    private final Nesting depth = new Nesting();

    HelidonClientHooks(CallProbe calls) {
        this.calls = calls;
    }

    List<Hook> hooks() {
        return List.of(call("validateAndSubmit", "(Ljava/lang/Object;)"),
                call("outputStream", "(Lio/helidon/webclient/api/ClientRequest$OutputStreamHandler;)"));
    }

    private Hook call(String name, String descriptorPrefix) {
        return new Hook(REQUEST, name, descriptorPrefix, Hook.TIMED | Hook.SELF | Hook.RETURNED) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                depth.enter();
                return System.nanoTime();
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                if (!depth.exit()) return;
                Object m = text.call(httpMethod.call(self));
                String url = String.valueOf(resolvedUri.call(self));
                Throwable error = thrown;
                if (error == null && code.number(status.call(returned)) >= 500) error = JdkHttpHooks.ServerError.INSTANCE;
                calls.record(end, "http", m + " " + SqlText.normalizeUrl(url), m + " " + url, start, error);
            }
        };
    }
}
