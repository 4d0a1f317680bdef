package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import io.culprit.model.Series;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * Requests of a real Reactor Netty HTTP server (WebFlux's default), whose handlers return at once
 * and answer later from a timer: each request is timed from its head's arrival to its response's
 * end, by route with numeric segments folded; requests held open count in flight; a 500 counts as
 * an error.
 */
class ReactorNettyProbeTest {

    private static final long ANSWER_MS = 60;

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void requestsAreTimedFromTheirHeadToTheirResponsesEnd() throws Exception {
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                .route(r -> r
                        .get("/items/{id}", (req, res) -> res.sendString(Mono.delay(Duration.ofMillis(ANSWER_MS)).map(x -> "item")))
                        .get("/held", (req, res) -> res.sendString(Mono.delay(Duration.ofMillis(2_500)).map(x -> "held")))
                        .get("/fail", (req, res) -> res.status(500).sendString(Mono.just("no"))))
                .bindNow();
        try {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            get(http, base + "/items/0");  // loads the classes the probes weave
            get(http, base + "/fail");
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(ReactorNettyHooks.SERVER_OPERATIONS + ".<init>"));
            for (int i = 0; i < 10; i++) get(http, base + "/items/" + (100 + i));
            for (int i = 0; i < 3; i++) get(http, base + "/fail");
            List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                held.add(http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/held")).build(), HttpResponse.BodyHandlers.ofString()));
            }
            // A window closes every second; one of them closes while the six are held.
            assertThat(CallRows.until(() -> p.windows.lastRequests().getOrDefault("inFlight", 0.0) >= 6)).as("six requests in flight").isTrue();
            for (CompletableFuture<HttpResponse<String>> f : held) assertThat(f.get().statusCode()).isEqualTo(200);

            assertThat(CallRows.until(() -> p.requests.count() >= 19)).as("19 requests counted, not " + p.requests.count()).isTrue();
            Map<String, Object> items = CallRows.route(p, "GET /items/{n}");
            assertThat(items).containsEntry("count", 10L);
            assertThat((Double) items.get("p50Ms")).isGreaterThanOrEqualTo(ANSWER_MS * 0.95);
            assertThat(CallRows.route(p, "GET /fail")).containsEntry("count", 3L);
            assertThat(CallRows.route(p, "GET /held")).containsEntry("count", 6L);
            assertThat(CallRows.until(() -> p.windows.lastRequests().getOrDefault("inFlight", -1.0) == 0)).as("none left in flight").isTrue();
            Series requests = p.windows.series("requests");
            assertThat(Arrays.stream(requests.column("errors").orElseThrow()).sum()).isEqualTo(3.0);
            assertThat(ProbeContext.run(new RequestsCommand(), false).text()).containsPattern("GET /items/\\{n\\}\\s+10\\s");
        } finally {
            server.disposeNow();
        }
    }



    private static void get(HttpClient http, String url) throws Exception {
        http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
