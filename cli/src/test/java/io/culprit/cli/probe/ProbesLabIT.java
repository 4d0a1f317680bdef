package io.culprit.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.culprit.cli.it.Cli;
import io.culprit.cli.lab.LabJar;
import io.culprit.cli.lab.LabProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The framework probes through the real CLI against the lab service (healthy scenario, H2): one
 * lab for the class, the agent stays attached between the steps, and the last step detaches.
 * Skipped when the lab jar is not built yet (it builds after cli in a clean reactor build).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProbesLabIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int REQUESTS = 40;
    private static LabProcess lab;
    private static Path log;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void startLab() throws Exception {
        Path jar = Path.of("..", "lab", "target", "culprit-lab.jar").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isRegularFile(jar), "no " + jar + " yet (lab builds after cli); skipping");
        log = Files.createTempFile("probes-lab-it", ".log");
        lab = LabProcess.start(LabJar.at(jar), new LabProcess.Options("healthy", false, "h2", LabProcess.freePort(), false),
                ProcessBuilder.Redirect.appendTo(log.toFile()));
        // The probes weave classes already loaded: serve some traffic first, as a real service has.
        get(REQUESTS);
    }

    @AfterAll
    static void stopLab() throws Exception {
        if (lab == null) return;
        Cli.run("exec", pid(), "stop");
        lab.stop();
        Files.deleteIfExists(log);
    }

    @Test
    @Order(0)
    void collectWritesTheProbesSeriesAndTablesIntoTheCaseFile() throws Exception {
        Path dir = Files.createTempDirectory("probes-case");
        JsonNode started = exec("collect start --probes");
        assertThat(started.get("probes").asInt()).as(started.toString()).isGreaterThanOrEqualTo(5);
        get(REQUESTS);
        JsonNode stopped = exec("collect stop --case " + dir);
        assertThat(stopped.get("probeEvidence").toString()).contains("series/pools", "tables/routes", "tables/calls",
                "tables/beans", "tables/logging", "tables/construction");
        // case.json is diagnose's to write; the series and tables are collect's.
        JsonNode routes = JSON.readTree(dir.resolve("tables/routes.json").toFile()).get("rows");
        assertThat(routes.get(0).get("route").asText()).isEqualTo("GET /api/orders/{id}");
        assertThat(routes.get(0).get("count").asLong()).isEqualTo(REQUESTS);
        assertThat(JSON.readTree(dir.resolve("series/pools.json").toFile()).get("columns").has("hikariTotal")).isTrue();
        assertThat(JSON.readTree(dir.resolve("tables/calls.json").toFile()).get("rows").get(0).get("perRequest").asDouble()).isPositive();
    }

    @Test
    @Order(1)
    void requestsAreCountedPerRouteWithHandlerInsideContainerTime() throws Exception {
        JsonNode before = exec("requests");
        assertThat(before.get("routes")).isEmpty();
        get(REQUESTS);
        JsonNode route = routeOf(exec("requests"), "GET /api/orders/{id}");
        assertThat(route.get("count").asLong()).isEqualTo(REQUESTS);
        double handler = route.get("handlerMs").asDouble();
        double container = route.get("containerMs").asDouble();
        assertThat(handler).isPositive();
        assertThat(container).isGreaterThanOrEqualTo(handler);
        assertThat(route.get("belowHandlerMs").asDouble()).isCloseTo(container - handler, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    @Order(2)
    void theHikariAndTomcatPoolsAreFoundAndNothingWaits() throws Exception {
        get(10);
        JsonNode pools = exec("pools").get("pools");
        JsonNode hikari = find(pools, "hikari");
        JsonNode tomcat = find(pools, "tomcat");
        assertThat(hikari.get("pending").asDouble()).isZero();
        assertThat(hikari.get("total").asDouble()).isPositive();
        assertThat(tomcat.get("total").asDouble()).isPositive();
    }

    @Test
    @Order(3)
    void theOrderLookupsSqlIsTimedPerRequest() throws Exception {
        JsonNode calls = exec("calls").get("calls");
        JsonNode sql = StreamSupport.stream(calls.spliterator(), false)
                .filter(c -> "sql".equals(c.get("kind").asText())).findFirst().orElseThrow(() -> new AssertionError(calls));
        assertThat(sql.get("count").asLong()).isPositive();
        assertThat(sql.get("slowCount").asLong()).isZero();
    }

    @Test
    @Order(4)
    void resetRemovesTheProbesAndTheNextViewStartsOver() throws Exception {
        Cli.Result r = Cli.run("exec", pid(), "reset");
        assertThat(r.code).as(r.toString()).isZero();
        assertThat(exec("requests").get("routes")).isEmpty();
    }

    private static JsonNode exec(String command) throws Exception {
        Cli.Result r = Cli.run("exec", "--json", pid(), command);
        assertThat(r.code).as("%s\nlab log:\n%s", r, Files.readString(log)).isZero();
        return JSON.readTree(r.out);
    }

    private static JsonNode routeOf(JsonNode requests, String route) {
        for (JsonNode r : requests.get("routes")) if (route.equals(r.get("route").asText())) return r;
        throw new AssertionError("no route " + route + " in " + requests);
    }

    private static JsonNode find(JsonNode pools, String prefix) {
        for (JsonNode p : pools) if (p.get("pool").asText().startsWith(prefix)) return p;
        throw new AssertionError("no " + prefix + " pool in " + pools);
    }

    private static String pid() {
        return Long.toString(lab.pid());
    }

    private static void get(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(lab.baseUrl() + "/api/orders/7")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
        }
    }
}
