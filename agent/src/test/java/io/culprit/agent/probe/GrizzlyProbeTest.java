package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests of a real Grizzly HTTP server (the one Jersey's grizzly2 container runs on): counted by
 * route with numeric segments folded, timed from the handler's start to its end, a 500 an error.
 */
class GrizzlyProbeTest {

    private static final long WORK_MS = 30;

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void requestsAreCountedByRouteWithTheirTimeAndErrors() throws Exception {
        HttpServer server = new HttpServer();
        NetworkListener listener = new NetworkListener("test", "127.0.0.1", 0);
        server.addListener(listener);
        server.getServerConfiguration().addHttpHandler(new HttpHandler() {
            @Override
            public void service(Request request, Response response) throws Exception {
                if (request.getRequestURI().startsWith("/broken")) {
                    response.setStatus(500);
                    return;
                }
                long until = System.nanoTime() + WORK_MS * 1_000_000;
                while (System.nanoTime() < until) Thread.onSpinWait();  // the handler's own work, on its thread
                response.getWriter().write("parcel");
            }
        }, "/");
        server.start();
        try {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + listener.getPort();
            assertThat(get(client, base + "/parcels/1")).isEqualTo(200);  // loads the classes the probes weave
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(GrizzlyHooks.HANDLER + ".runService"));
            for (int i = 0; i < 8; i++) assertThat(get(client, base + "/parcels/" + (100 + i))).isEqualTo(200);
            for (int i = 0; i < 3; i++) assertThat(get(client, base + "/broken")).isEqualTo(500);

            assertThat(CallRows.until(() -> p.requests.count() >= 11)).as("11 requests counted, not " + p.requests.count()).isTrue();
            Map<String, Object> parcels = CallRows.route(p, "GET /parcels/{n}");
            assertThat(parcels).containsEntry("count", 8L);
            assertThat((Double) parcels.get("p50Ms")).isGreaterThanOrEqualTo(WORK_MS * 0.95);
            assertThat(CallRows.route(p, "GET /broken")).containsEntry("count", 3L);
            assertThat(CallRows.until(() -> CallRows.requestErrors(p) == 3.0)).as("3 answers were 500, not " + CallRows.requestErrors(p)).isTrue();
        } finally {
            server.shutdownNow();
        }
    }

    private static int get(HttpClient client, String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
