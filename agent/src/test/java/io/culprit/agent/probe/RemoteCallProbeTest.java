package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Dependency calls and pools outside HikariCP/Spring, on the real libraries: Jedis against the
 * Redis server on 127.0.0.1:6379, the JDK's HttpClient against a JDK HttpServer, and a plain
 * ThreadPoolExecutor. The probes start after each library has been used once, as they do in a
 * service that has served traffic (only loaded classes are woven).
 */
class RemoteCallProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void redisCommandsAreTimedByNameAndASlowOneIsAlerted() throws Exception {
        assumeTrue(CallRows.redisUp(), "no Redis on 127.0.0.1:6379");
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            jedis.set("culprit:probe", "1");  // loads and links Jedis's classes before the weave
            Probes p = Probes.ensure(ProbeContext.INST);
            p.thresholds.redisMs = 100;  // above what a GET takes even on a loaded machine, below the BLPOP
            for (int i = 0; i < 20; i++) jedis.set("culprit:probe", Integer.toString(i));
            for (int i = 0; i < 30; i++) jedis.get("culprit:probe");
            jedis.del("culprit:probe:empty");
            long t0 = System.nanoTime();
            jedis.blpop(0.15, "culprit:probe:empty");  // the server answers nil after 150 ms
            long blockedMs = (System.nanoTime() - t0) / 1_000_000;

            assertThat(CallRows.row(p, "redis", "SET")).containsEntry("count", 20L);
            assertThat(CallRows.row(p, "redis", "GET")).containsEntry("count", 30L);
            Map<String, Object> blpop = CallRows.row(p, "redis", "BLPOP");
            assertThat((Double) blpop.get("maxMs")).isBetween(140.0, blockedMs + 1.0);
            assertThat(blpop).containsEntry("slowCount", 1L);
            assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("SLOW redis").contains("BLPOP");
        } finally {
            try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
                jedis.del("culprit:probe");  // the machine's Redis keeps nothing of the test
            }
        }
    }

    @Test
    void jdkHttpClientSendAndSendAsyncAreTimedWithServerErrors() throws Exception {
        assumeTrue(ProbeContext.BRIDGE_ON_BOOT_PATH, ProbeContext.WHY_NO_JDK);
        try (RemoteStub remote = new RemoteStub()) {
            HttpClient client = HttpClient.newHttpClient();
            String base = remote.base;
            HttpRequest slow = HttpRequest.newBuilder(URI.create(base + "/slow")).build();
            client.send(slow, HttpResponse.BodyHandlers.discarding());  // loads HttpClientImpl before the weave
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(JdkHttpHooks.HTTP_CLIENT_IMPL + ".sendAsync"));

            client.send(slow, HttpResponse.BodyHandlers.discarding());
            client.sendAsync(slow, HttpResponse.BodyHandlers.discarding()).get(10, TimeUnit.SECONDS);
            HttpRequest broken = HttpRequest.newBuilder(URI.create(base + "/broken")).build();
            client.send(broken, HttpResponse.BodyHandlers.discarding());

            Map<String, Object> s = CallRows.waitForRow(p, "http", "GET " + base + "/slow", 2);
            assertThat((Double) s.get("maxMs")).isGreaterThanOrEqualTo(80.0);
            assertThat(s).containsEntry("errors", 0L);
            // The call site is the caller's thread's (here the test runner's frames; culprit's own are
            // skipped), not the client's completion thread's, where nothing is the application's.
            assertThat((String) s.get("caller")).isNotEqualTo("(unknown)").startsWith("org.junit.");
            assertThat(CallRows.waitForRow(p, "http", "GET " + base + "/broken", 1)).containsEntry("errors", 1L);
            assertThat(s).as("no loop waited").containsEntry("eventLoopMs", 0.0);

            // On an event loop's thread the synchronous send waits there, blocking the loop; sendAsync does not.
            HttpRequest onLoop = HttpRequest.newBuilder(URI.create(base + "/slow?on=loop")).build();
            HttpRequest async = HttpRequest.newBuilder(URI.create(base + "/broken?on=loop")).build();
            Thread loop = new Thread(() -> {
                try {
                    client.send(onLoop, HttpResponse.BodyHandlers.discarding());
                    client.sendAsync(async, HttpResponse.BodyHandlers.discarding());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "reactor-tcp-epoll-1");
            loop.start();
            loop.join();
            Map<String, Object> blocked = CallRows.waitForRow(p, "http", "GET " + base + "/slow", 3);
            assertThat((Double) blocked.get("eventLoopMs")).as("the send made on the loop").isGreaterThanOrEqualTo(80.0)
                    .isLessThan((Double) blocked.get("totalMs"));
            assertThat(CallRows.waitForRow(p, "http", "GET " + base + "/broken", 2)).as("sendAsync on the loop").containsEntry("eventLoopMs", 0.0);
        }
    }

    @Test
    void anHttpUrlConnectionIsTimedOnceWhateverTheCallerAsksIt() throws Exception {
        assumeTrue(ProbeContext.BRIDGE_ON_BOOT_PATH, ProbeContext.WHY_NO_JDK);
        try (RemoteStub remote = new RemoteStub()) {
            String base = remote.base;
            open(base + "/slow").getResponseCode();  // loads the JDK's HttpURLConnection before the weave
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(UrlConnectionHooks.HTTP_URL_CONNECTION + ".getInputStream0"));

            // The usual pattern asks for the status, then the body: one round trip, one call.
            java.net.HttpURLConnection both = open(base + "/slow");
            assertThat(both.getResponseCode()).isEqualTo(200);
            both.getInputStream().close();
            try (java.io.InputStream in = open(base + "/slow").getInputStream()) {
                in.readAllBytes();
            }
            assertThat(open(base + "/broken").getResponseCode()).isEqualTo(503);
            assertThat(open(base + "/absent").getResponseCode()).isEqualTo(404);

            Map<String, Object> s = CallRows.waitForRow(p, "http", "GET " + base + "/slow", 2);
            assertThat(s).containsEntry("count", 2L).containsEntry("errors", 0L);
            assertThat((Double) s.get("maxMs")).isGreaterThanOrEqualTo(80.0);
            assertThat(CallRows.waitForRow(p, "http", "GET " + base + "/broken", 1)).containsEntry("errors", 1L);
            // A 4xx is the service's answer, not a failed call, as with the other clients.
            assertThat(CallRows.waitForRow(p, "http", "GET " + base + "/absent", 1)).containsEntry("errors", 0L);
        }
    }

    private static java.net.HttpURLConnection open(String url) throws java.io.IOException {
        return (java.net.HttpURLConnection) URI.create(url).toURL().openConnection();
    }

    @Test
    void anHttpCallMadeWhileHoldingAPooledConnectionIsCountedAsHeld() throws Exception {
        assumeTrue(ProbeContext.BRIDGE_ON_BOOT_PATH, ProbeContext.WHY_NO_JDK);
        com.zaxxer.hikari.HikariConfig c = new com.zaxxer.hikari.HikariConfig();
        c.setJdbcUrl("jdbc:h2:mem:held;DB_CLOSE_DELAY=-1");
        c.setMaximumPoolSize(1);
        try (com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource(c); RemoteStub remote = new RemoteStub()) {
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest slow = HttpRequest.newBuilder(URI.create(remote.base + "/slow")).build();
            client.send(slow, HttpResponse.BodyHandlers.discarding());  // loads HttpClientImpl before the weave
            ds.getConnection().close();  // and the pool's classes
            Probes p = Probes.ensure(ProbeContext.INST);

            client.send(slow, HttpResponse.BodyHandlers.discarding());  // no connection held
            try (java.sql.Connection held = ds.getConnection()) {
                // The JDK client completes on its own thread: held is asked on this one, at the call.
                client.send(slow, HttpResponse.BodyHandlers.discarding());
            }
            Map<String, Object> s = CallRows.waitForRow(p, "http", "GET " + remote.base + "/slow", 2);
            double heldMs = (Double) s.get("heldMs"), totalMs = (Double) s.get("totalMs");
            assertThat(heldMs).as("one of two calls, each over 80 ms, was made holding the connection").isGreaterThanOrEqualTo(80.0)
                    .isLessThanOrEqualTo(totalMs - 80.0);
        }
    }

    @Test
    void anApplicationExecutorIsFoundAtItsFirstUseAndSampled() throws Exception {
        assumeTrue(ProbeContext.BRIDGE_ON_BOOT_PATH, ProbeContext.WHY_NO_JDK);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.submit(() -> { }).get();
        Probes p = Probes.ensure(ProbeContext.INST);
        // Found at its workers, which were already in runWorker: ThreadPoolExecutor itself is never
        // retransformed (that would leave those loops running interpreted, see AppExecutors).
        assertThat(p.woven).contains(AppExecutors.TPE + "$Worker.lock()")
                .noneMatch(w -> w.startsWith(AppExecutors.TPE + "."));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(2);
        try {
            for (int i = 0; i < 5; i++) {
                pool.execute(() -> {
                    running.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            String name = "executor " + AppExecutors.name((java.util.concurrent.ThreadPoolExecutor) pool);
            Map<String, Object> row = p.pools.describe().stream()
                    .filter(r -> name.equals(r.get("pool"))).findFirst().orElseThrow(() -> new AssertionError(p.pools.describe()));
            assertThat(row).containsEntry("active", 2.0).containsEntry("pending", 3.0).containsEntry("total", 2.0);
        } finally {
            release.countDown();
            pool.shutdown();
        }
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
}
