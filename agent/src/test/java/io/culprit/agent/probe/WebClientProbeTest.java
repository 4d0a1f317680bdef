package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.reactive.HttpComponentsClientHttpConnector;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;

/**
 * Spring's WebClient (on HttpClient 5's async client) against the stub remote: an exchange is
 * timed from its subscription to the response head, a 503 and a refused connection count as
 * errors, the caller sees exactly what it saw without the probe, and the remote gets each request
 * once (the probe never subscribes to the exchange's Mono itself).
 */
class WebClientProbeTest {

    private RemoteStub remote;
    private final LongAdder hits = new LongAdder();

    @BeforeEach
    void start() throws Exception {
        remote = new RemoteStub();
        remote.server.createContext("/counted", x -> {
            hits.increment();
            x.sendResponseHeaders(204, -1);
            x.close();
        });
    }

    /**
     * Spring's logging (and jboss-logging, Undertow's) started log4j2's context for this class
     * loader with its default configuration; stopping it lets a later test configure its own.
     */
    @AfterAll
    static void releaseLog4j() {
        Configurator.shutdown((LoggerContext) LogManager.getContext(WebClientProbeTest.class.getClassLoader(), false));
    }

    @AfterEach
    void stop() {
        Instrumenter.resetAll();
        Probes.stop();
        remote.close();
    }

    @Test
    void exchangesAreTimedToTheResponseWithServerErrorsAndFailuresAndSubscribedOnce() throws Exception {
        try (HttpComponentsClientHttpConnector connector = new HttpComponentsClientHttpConnector()) {
            WebClient client = WebClient.builder().clientConnector(connector).build();
            String base = remote.base;
            assertThat(status(client, base + "/slow")).isEqualTo(200);  // loads the exchange function before the weave
            Class<?> exchangeFunction = Class.forName(WebClientHooks.EXCHANGE_FUNCTION);
            List<String> original = ClassFiles.code(exchangeFunction);
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(WebClientHooks.EXCHANGE_FUNCTION + ".exchange"))
                    .anyMatch(w -> w.startsWith(WebClientHooks.EXCHANGE_FUNCTION + ".getLogPrefix"))
                    .anyMatch(w -> w.startsWith(WebClientHooks.EXCHANGE_FUNCTION + ".wrapException"));
            assertThat(p.callsWoven()).isTrue();
            assertThat(ClassFiles.code(exchangeFunction)).anyMatch(i -> i.contains("io/culprit/bootstrap/Bridge"));
            p.thresholds.httpMs = 50;

            long wallMs = 0;
            for (String path : new String[] {"/slow?user=7", "/slow"}) {
                long t0 = System.nanoTime();
                assertThat(status(client, base + path)).isEqualTo(200);
                wallMs = Math.max(wallMs, (System.nanoTime() - t0) / 1_000_000 + 1);
            }
            assertThat(status(client, base + "/broken")).as("the caller still gets the 503").isEqualTo(503);
            String refused = "http://127.0.0.1:" + closedPort() + "/gone";
            assertThatThrownBy(() -> status(client, refused)).isInstanceOf(WebClientRequestException.class);
            for (int i = 0; i < 5; i++) assertThat(status(client, base + "/counted")).isEqualTo(204);

            Map<String, Object> slow = CallRows.row(p, "http", "GET " + base + "/slow");
            assertThat(slow).containsEntry("count", 2L).containsEntry("errors", 0L).containsEntry("slowCount", 2L);
            assertThat((Double) slow.get("maxMs")).isGreaterThanOrEqualTo(80.0).isLessThanOrEqualTo((double) wallMs);
            assertThat(p.calls.alerts()).anyMatch(a -> ("GET " + base + "/slow?user=7").equals(a.get("text")));
            assertThat(CallRows.row(p, "http", "GET " + base + "/broken")).containsEntry("count", 1L).containsEntry("errors", 1L);
            assertThat(CallRows.row(p, "http", "GET " + refused)).containsEntry("count", 1L).containsEntry("errors", 1L);
            assertThat(CallRows.row(p, "http", "GET " + base + "/counted")).containsEntry("count", 5L).containsEntry("errors", 0L);
            assertThat(hits.sum()).as("requests the remote got").isEqualTo(5);

            Instrumenter.resetAll();
            assertThat(ClassFiles.code(exchangeFunction)).isEqualTo(original);
        }
    }

    /**
     * On the JDK's connector the send is the JDK HttpClient's, which culprit also hooks: each
     * exchange counts once. A direct call on the same client afterwards still counts.
     */
    @Test
    void anExchangeOnTheJdkConnectorCountsOnce() throws Exception {
        assumeTrue(ProbeContext.BRIDGE_ON_BOOT_PATH, ProbeContext.WHY_NO_JDK);
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector(http)).build();
        String base = remote.base;
        assertThat(status(client, base + "/counted")).isEqualTo(204);  // loads both before the weave
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(JdkHttpHooks.HTTP_CLIENT_IMPL + ".sendAsync"));
        for (int i = 0; i < 4; i++) assertThat(status(client, base + "/counted")).isEqualTo(204);
        http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/broken")).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding());
        // The direct call records on HttpClient's thread after the exchanges' sends: once it is in,
        // a second record of theirs would be too.
        CallRows.waitForRow(p, "http", "GET " + base + "/broken", 1);
        assertThat(CallRows.row(p, "http", "GET " + base + "/counted")).containsEntry("count", 4L);
        assertThat(hits.sum()).as("requests the remote got").isEqualTo(5);
    }

    /**
     * The response is recorded on the connector's thread before the response reaches the
     * caller's operators, so block() returning means the record is made.
     */
    private static int status(WebClient client, String url) {
        return client.get().uri(url).exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(10));
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
