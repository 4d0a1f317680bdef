package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import io.culprit.model.Series;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests of a real Vert.x HTTP server, whose handlers run on its event loop and answer later,
 * from a timer or from a worker thread: each request is timed from its head's arrival to its
 * response's end, by path with numeric segments folded; requests held open count in flight; a
 * 500 counts as an error, and so does a request whose client hung up before the answer.
 */
class VertxProbeTest {

    private static final long ANSWER_MS = 60;

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void requestsAreTimedFromTheirHeadToTheirResponsesEnd() throws Exception {
        Vertx vertx = Vertx.vertx();
        HttpServer server = vertx.createHttpServer().requestHandler(req -> {
            String p = req.path();
            if (p.startsWith("/items/")) {
                vertx.setTimer(ANSWER_MS, t -> req.response().end("item"));
            } else if (p.equals("/worker")) {
                // Answered from a worker thread: the connection hops back to its loop to finish.
                new Thread(() -> { busy(ANSWER_MS); req.response().end("done"); }).start();
            } else if (p.equals("/held")) {
                vertx.setTimer(2_500, t -> req.response().end("held"));
            } else if (p.equals("/hangup")) {
                vertx.setTimer(1_500, t -> { if (!req.response().closed()) req.response().end("late"); });
            } else {
                req.response().setStatusCode(500).end("no");
            }
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            // HTTP/1.1: the JDK client's default asks Vert.x to upgrade to h2c, whose requests are not timed.
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String base = "http://127.0.0.1:" + server.actualPort();
            get(http, base + "/items/0");  // loads the classes the probes weave
            get(http, base + "/fail");
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(VertxHooks.REQUEST + ".<init>"));
            assertThat(p.woven).anyMatch(w -> w.startsWith(VertxHooks.CONNECTION + ".responseComplete"));
            for (int i = 0; i < 10; i++) get(http, base + "/items/" + (100 + i));
            for (int i = 0; i < 4; i++) get(http, base + "/worker");
            for (int i = 0; i < 3; i++) get(http, base + "/fail");
            List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                held.add(http.sendAsync(HttpRequest.newBuilder(URI.create(base + "/held")).build(), HttpResponse.BodyHandlers.ofString()));
            }
            // A window closes every second; one of them closes while the six are held.
            assertThat(CallRows.until(() -> p.windows.lastRequests().getOrDefault("inFlight", 0.0) >= 6)).as("six requests in flight").isTrue();
            for (CompletableFuture<HttpResponse<String>> f : held) assertThat(f.get().statusCode()).isEqualTo(200);
            hangUp(server.actualPort(), "/hangup");

            assertThat(CallRows.until(() -> p.requests.count() >= 24)).as("24 requests counted, not " + p.requests.count()).isTrue();
            Map<String, Object> items = CallRows.route(p, "GET /items/{n}");
            assertThat(items).containsEntry("count", 10L);
            assertThat((Double) items.get("p50Ms")).isGreaterThanOrEqualTo(ANSWER_MS * 0.95);
            Map<String, Object> worker = CallRows.route(p, "GET /worker");
            assertThat(worker).containsEntry("count", 4L);
            assertThat((Double) worker.get("p50Ms")).isGreaterThanOrEqualTo(ANSWER_MS * 0.95);
            assertThat(CallRows.route(p, "GET /fail")).containsEntry("count", 3L);
            assertThat(CallRows.route(p, "GET /held")).containsEntry("count", 6L);
            assertThat(CallRows.route(p, "GET /hangup")).containsEntry("count", 1L);
            assertThat(CallRows.until(() -> p.windows.lastRequests().getOrDefault("inFlight", -1.0) == 0)).as("none left in flight").isTrue();
            Series requests = p.windows.series("requests");
            assertThat(Arrays.stream(requests.column("errors").orElseThrow()).sum()).as("3 failed, 1 hung up").isEqualTo(4.0);
            assertThat(ProbeContext.run(new RequestsCommand(), false).text()).containsPattern("GET /items/\\{n\\}\\s+10\\s");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theHttpClientsCallsAreTimedFromTheLentConnectionToTheResponsesEnd() throws Exception {
        Vertx vertx = Vertx.vertx();
        HttpServer server = vertx.createHttpServer().requestHandler(req -> {
            if (req.path().startsWith("/items/")) vertx.setTimer(ANSWER_MS, t -> req.response().end("item"));
            else req.response().setStatusCode(503).end("no");
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        io.vertx.core.http.HttpClient client = vertx.createHttpClient();
        try {
            int port = server.actualPort();
            call(client, port, "/items/0");  // loads the client's classes before the weave
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(VertxHttpClientHooks.RESPONSE + ".handleEnd"));
            for (int i = 0; i < 5; i++) call(client, port, "/items/" + (10 + i));
            call(client, port, "/down");
            String base = "http://127.0.0.1:" + port;
            Map<String, Object> items = CallRows.waitForRow(p, "http", "GET " + base + "/items/{n}", 5);
            assertThat(items).containsEntry("count", 5L).containsEntry("errors", 0L).containsEntry("reactiveClient", "vertx-http-client");
            assertThat((Double) items.get("p99Ms")).isGreaterThanOrEqualTo(ANSWER_MS * 0.95);
            assertThat(CallRows.waitForRow(p, "http", "GET " + base + "/down", 1)).containsEntry("errors", 1L);
        } finally {
            client.close();
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static void call(io.vertx.core.http.HttpClient client, int port, String path) throws Exception {
        client.request(io.vertx.core.http.HttpMethod.GET, port, "127.0.0.1", path)
                .compose(r -> r.send().compose(io.vertx.core.http.HttpClientResponse::body))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Sends a request's head and closes the connection before the server answers. */
    private static void hangUp(int port, String path) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(200);  // lets the server read the head before the close: the client's own pace, not a mechanism
        }
    }

    private static Object busy(long ms) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        long x = 0;
        while (System.nanoTime() < end) x += System.identityHashCode(new Object());
        return x;
    }



    private static void get(HttpClient http, String url) throws Exception {
        http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
