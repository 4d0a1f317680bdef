package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import io.culprit.model.Series;
import io.ktor.http.HttpStatusCode;
import io.ktor.server.engine.EmbeddedServer;
import io.ktor.server.engine.EmbeddedServerKt;
import io.ktor.server.netty.Netty;
import io.ktor.server.response.ApplicationResponseFunctionsKt;
import io.ktor.server.routing.RoutingBuilderKt;
import io.ktor.server.routing.RoutingRootKt;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import kotlin.Unit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ktor 3's Netty engine, configured from Java as a Kotlin module would: /items/{id} answers, /boom
 * answers 503. Requests are counted by their folded path, in flight between the call's
 * construction and the engine's finish.
 */
class KtorServerProbeTest {

    private EmbeddedServer<?, ?> server;
    private String base;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        server = EmbeddedServerKt.embeddedServer(Netty.INSTANCE, port, "127.0.0.1", List.<String>of(), (app, continuation) -> {
            RoutingRootKt.routing(app, routing -> {
                RoutingBuilderKt.get(routing, "/items/{id}", (ctx, cont) ->
                        ApplicationResponseFunctionsKt.respondText(ctx.getCall(), "item", null, null, content -> Unit.INSTANCE, cont));
                RoutingBuilderKt.get(routing, "/boom", (ctx, cont) -> ApplicationResponseFunctionsKt.respondText(ctx.getCall(),
                        "down", null, HttpStatusCode.Companion.getServiceUnavailable(), content -> Unit.INSTANCE, cont));
                return Unit.INSTANCE;
            });
            return Unit.INSTANCE;
        });
        server.start(false);
        base = "http://127.0.0.1:" + port;
    }

    @AfterEach
    void stop() {
        Instrumenter.resetAll();
        Probes.stop();
        server.stop(0, 1_000);
    }

    @Test
    void requestsAreCountedByFoldedPathWithTheirServerErrors() throws Exception {
        assertThat(get("/items/1")).isEqualTo(200);  // loads the engine's classes before the weave
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(KtorServerHooks.HTTP1_CALL + ".<init>"))
                .anyMatch(w -> w.startsWith(KtorServerHooks.CALL + ".finish"));
        for (int i = 0; i < 5; i++) assertThat(get("/items/" + (100 + i) + "?full=true")).isEqualTo(200);
        assertThat(get("/boom")).isEqualTo(503);

        assertThat(CallRows.until(() -> p.requests.count() >= 6)).as("6 requests counted, not " + p.requests.count()).isTrue();
        Map<String, Object> items = CallRows.route(p, "GET /items/{n}");
        assertThat(items).containsEntry("count", 5L);
        assertThat(CallRows.route(p, "GET /boom")).containsEntry("count", 1L);
        assertThat(CallRows.until(() -> p.windows.lastRequests().getOrDefault("inFlight", -1.0) == 0)).as("none left in flight").isTrue();
        Series requests = p.windows.series("requests");
        assertThat(Arrays.stream(requests.column("errors").orElseThrow()).sum()).as("the 503").isEqualTo(1.0);
    }

    private int get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
