package io.culprit.agent.probe;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.util.List;

/**
 * The JDK's {@code HttpURLConnection} (what {@code URL.openConnection()} returns for http and
 * https, Feign's default client, and older SDKs): its private {@code getInputStream0()} (JDK 9
 * to 25) sends the request, if the caller has not, and reads the response head, so its
 * duration is the round trip; {@code getResponseCode()} and {@code getInputStream()} both go
 * through it, and it calls itself while it reads the answer, so only the outermost call is timed.
 * A connection answers once: a later call returns the stream it already has and is not a call,
 * so each connection is recorded once per thread. RestTemplate on this client is
 * left to Spring's hook, including the body it asks for after its own call has returned. A JDK
 * class: woven by exact name, its types used directly.
 */
final class UrlConnectionHooks {

    static final String HTTP_URL_CONNECTION = "sun.net.www.protocol.http.HttpURLConnection";

    private UrlConnectionHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        // Per thread: {depth in getInputStream0, identity of the connection last recorded}.
        PerThread state = new PerThread(() -> new int[2]);
        return List.of(new Hook(HTTP_URL_CONNECTION, "getInputStream0", "()", Hook.TIMED | Hook.SELF) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                ((int[]) state.get())[0]++;
                return System.nanoTime();
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                int[] s = (int[]) state.get();
                // It re-enters itself while reading the answer (header look-ups ask for the stream): the
                // outermost call is the round trip. 0 when woven during a call.
                if (s[0] > 0 && --s[0] > 0) return;
                if (!(self instanceof HttpURLConnection)) return;
                int identity = System.identityHashCode(self);
                // Marked before the status is asked for: asking re-enters this method on a failed answer.
                if (s[1] == identity) return;
                s[1] = identity;
                // Marked even then: RestTemplate reads the body after its execute() returned, and that
                // getInputStream() comes through here again, outside Spring's call.
                if (calls.insideSpringRequest()) return;
                HttpURLConnection c = (HttpURLConnection) self;
                String method = c.getRequestMethod();
                String url = String.valueOf(c.getURL());
                calls.record(end, "http", method + " " + SqlText.normalizeUrl(url), method + " " + url, start, failure(c, thrown));
            }
        });
    }

    /**
     * A failed call as the other HTTP hooks count one: no answer, or a 5xx. The JDK throws for
     * every status from 400, so a 4xx thrown here is an answer, not a failure.
     */
    private static Throwable failure(HttpURLConnection c, Throwable thrown) {
        if (thrown == null) return null;
        if (thrown instanceof FileNotFoundException) return null;  // 404 and 410
        try {
            int status = c.getResponseCode();
            return status >= 500 || status < 0 ? thrown : null;
        } catch (IOException | RuntimeException e) {
            return thrown;
        }
    }
}
