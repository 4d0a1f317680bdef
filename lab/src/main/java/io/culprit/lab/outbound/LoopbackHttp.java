package io.culprit.lab.outbound;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/**
 * The outbound HTTP client. The "remote" services run inside the lab on 127.0.0.1 (an endpoint
 * of the lab, or a stub server), so the demo needs nothing else running, yet every call is a real HTTP round trip with a real
 * (de)serialization on both sides.
 */
@Component
public class LoopbackHttp implements ApplicationListener<WebServerInitializedEvent> {

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private volatile int port;

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        port = event.getWebServer().getPort();
    }

    /** POSTs a JSON body to {@code path} on this service and returns the response body. */
    public byte[] postJson(String path, byte[] body) {
        return postJsonTo("http://127.0.0.1:" + port, path, body);
    }

    /** POSTs a JSON body to {@code baseUrl + path} and returns the response body. */
    public byte[] postJsonTo(String baseUrl, String path, byte[] body) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        try {
            HttpResponse<byte[]> resp = sendOnce(req);
            if (resp.statusCode() != 200) {
                throw new IllegalStateException("POST " + path + " answered " + resp.statusCode());
            }
            return resp.body();
        } catch (IOException e) {
            throw new UncheckedIOException("POST " + path + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during POST " + path, e);
        }
    }

    /**
     * One send, and one more if the pooled connection it took was closed by the server as it was
     * taken (CI: "header parser received no bytes", a 500 in ConverterRebuildIT), as OkHttp and
     * Apache HttpClient do for a stale pooled connection. Safe here: both loopback services are
     * stateless (a stock level, a deterministic authorization).
     */
    private HttpResponse<byte[]> sendOnce(HttpRequest req) throws IOException, InterruptedException {
        try {
            return http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException slow) {
            throw slow;  // a slow service, not a stale connection: the scenario's latency must show
        } catch (IOException stale) {
            return http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        }
    }
}
