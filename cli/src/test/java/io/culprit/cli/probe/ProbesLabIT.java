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
 * The framework probes through the real CLI against the lab service (healthy scenario, H2, its
 * product cache in Redis when Redis answers on 127.0.0.1:6379): one lab for the class, the agent
 * stays attached between the steps, and the last step detaches. Besides Spring/Tomcat/Hikari, the
 * lab's outbound calls use the JDK's HttpClient (a JDK class: woven only through the real agent,
 * whose Bridge is on the boot path) and its executor, and its product lookups use Jedis.
 * Skipped when the lab jar is not built yet (it builds after cli in a clean reactor build).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProbesLabIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int REQUESTS = 40;
    private static LabProcess lab;
    private static Path log;
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static boolean redis;

    @BeforeAll
    static void startLab() throws Exception {
        Path jar = Path.of("..", "lab", "target", "culprit-lab.jar").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isRegularFile(jar), "no " + jar + " yet (lab builds after cli); skipping");
        log = Files.createTempFile("probes-lab-it", ".log");
        redis = redisUp();
        lab = LabProcess.start(LabJar.at(jar), new LabProcess.Options("healthy", false, "h2", 0, redis),
                ProcessBuilder.Redirect.appendTo(log.toFile()));
        // Serve some traffic first, as a real service has: the clients' classes are loaded at the
        // first view, which weaves them (a class loaded later joins at the next view).
        get(REQUESTS);
        get("/api/orders/7/availability", 1);  // outbound: the JDK HttpClient and its executor
        get("/api/customers/3/feed", 1);       // product names: Jedis when redis
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
        JsonNode started = exec("collect start");  // the probes are on by default
        assertThat(started.get("probes").asInt()).as(started.toString()).isGreaterThanOrEqualTo(5);
        get(REQUESTS);
        get("/api/orders/7/availability", 1);
        get("/api/customers/3/feed", 2);
        JsonNode stopped = exec("collect stop --case " + dir);
        assertThat(stopped.get("probeEvidence").toString()).contains("series/pools", "tables/routes", "tables/calls",
                "tables/beans", "tables/logging", "tables/construction");
        // case.json is diagnose's to write; the series and tables are collect's.
        JsonNode routes = JSON.readTree(dir.resolve("tables/routes.json").toFile()).get("rows");
        JsonNode orders = StreamSupport.stream(routes.spliterator(), false)
                .filter(r -> "GET /api/orders/{id}".equals(r.get("route").asText())).findFirst().orElseThrow(() -> new AssertionError(routes));
        assertThat(orders.get("count").asLong()).isEqualTo(REQUESTS);
        JsonNode columns = JSON.readTree(dir.resolve("series/pools.json").toFile()).get("columns");
        assertThat(columns.has("dbTotal")).isTrue();
        assertThat(columns.has("executorActive")).as("the HttpClient's executor, found at its first use: %s", columns).isTrue();
        JsonNode calls = JSON.readTree(dir.resolve("tables/calls.json").toFile()).get("rows");
        assertThat(call(calls, "sql", "SELECT o.id").get("perRequest").asDouble()).isPositive();
        // One availability check makes its inventory calls through the JDK HttpClient, each timed.
        JsonNode http = call(calls, "http", "POST http://127.0.0.1:");
        assertThat(http.get("count").asLong()).isPositive();
        assertThat(http.get("p99Ms").asDouble()).isPositive();
        if (redis) {
            assertThat(call(calls, "redis", "GET").get("count").asLong()).isPositive();
        }
    }

    @Test
    @Order(1)
    void weavingFirstThenCollectingWithoutJfrCountsOnlyTheCollection() throws Exception {
        Path dir = Files.createTempDirectory("probes-case");
        int woven = exec("collect weave").get("probes").asInt();
        get(7);  // served between the weave and the start: not in the collection
        JsonNode started = exec("collect start --no-jfr");
        assertThat(started.get("jfr").asBoolean()).isFalse();
        assertThat(started.get("probes").asInt()).isEqualTo(woven).isGreaterThanOrEqualTo(5);
        get(5);
        JsonNode stopped = exec("collect stop --case " + dir);
        assertThat(stopped.get("events").asLong()).isZero();
        JsonNode routes = JSON.readTree(dir.resolve("tables/routes.json").toFile()).get("rows");
        assertThat(routes.get(0).get("count").asLong()).as("only the requests of the collection: %s", routes).isEqualTo(5);
    }

    @Test
    @Order(2)
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
    @Order(3)
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
    @Order(4)
    void theOrderLookupsSqlIsTimedPerRequest() throws Exception {
        JsonNode calls = exec("calls").get("calls");
        JsonNode sql = StreamSupport.stream(calls.spliterator(), false)
                .filter(c -> "sql".equals(c.get("kind").asText())).findFirst().orElseThrow(() -> new AssertionError(calls));
        assertThat(sql.get("count").asLong()).isPositive();
        assertThat(sql.get("slowCount").asLong()).isZero();
    }

    @Test
    @Order(5)
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

    private static JsonNode call(JsonNode rows, String kind, String targetPrefix) {
        for (JsonNode r : rows) {
            if (kind.equals(r.get("kind").asText()) && r.get("target").asText().startsWith(targetPrefix)) return r;
        }
        throw new AssertionError("no " + kind + " call " + targetPrefix + "… in " + rows);
    }

    private static boolean redisUp() {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", 6379)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static String pid() {
        return Long.toString(lab.pid());
    }

    private static void get(int n) throws Exception {
        get("/api/orders/7", n);
    }

    private static void get(String path, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(lab.baseUrl() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
        }
    }
}
