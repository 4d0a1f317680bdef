package io.culprit.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.lab.customers.ProductCache;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The lab against the local PostgreSQL (127.0.0.1:5432, db test) and Redis (127.0.0.1:6379).
 * Skipped, with a message, when either does not answer.
 */
class PostgresRedisTest {

    static ConfigurableApplicationContext ctx;
    static int port;

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(answers(5432), "PostgreSQL does not answer on 127.0.0.1:5432; skipping");
        Assumptions.assumeTrue(answers(6379), "Redis does not answer on 127.0.0.1:6379; skipping");
        ctx = new SpringApplicationBuilder(LabApplication.class).run("--lab.db=postgres", "--lab.redis=true",
                "--lab.port=0", "--lab.scenario=row-lock", "--lab.log-file=target/lab-pg-test.log");
        port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
    }

    @AfterAll
    static void stop() {
        if (ctx != null) {
            ctx.close();
            // The lab caches its products in Redis as a service would, and removes them when it closes:
            // the machine's Redis keeps nothing of the test.
            try (redis.clients.jedis.Jedis j = new redis.clients.jedis.Jedis("127.0.0.1", 6379)) {
                assertThat(j.keys("culprit-lab:*")).as("keys left after the lab closed").isEmpty();
            }
        }
    }

    private static boolean answers(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Test
    void servesTheApiFromPostgresAndRedis() {
        assertThat(ctx.getBean(ProductCache.class).inRedis()).isTrue();
        assertThat(LabLoad.body(LabLoad.get(url("/api/orders/7")))).contains("\"id\":7");
        assertThat(LabLoad.body(LabLoad.get(url("/api/customers/3/feed")))).contains("PRODUCT ");
        assertThat(LabLoad.body(LabLoad.get(url("/api/orders/8/invoice")))).contains("INV-8");
    }

    @Test
    void rowLockSerializesOrdersOnPostgresToo() throws Exception {
        HttpRequest req = LabLoad.postJson(url("/api/orders"),
                "{\"customerId\":3,\"items\":[{\"productId\":4,\"qty\":2},{\"productId\":9,\"qty\":1}]}");
        LabMode mode = ctx.getBean(LabMode.class);
        RowLockScaling.Ratios ratios = RowLockScaling.measure(mode, req);
        double faulty = ratios.faulty();
        double fixed = ratios.fixed();
        System.out.printf("row-lock on PostgreSQL: throughput 8 clients / 1 client: faulty %.2f, fixed %.2f%n", faulty, fixed);
        // Ideal scaling would be 8; the faulty twin only overlaps what runs outside the lock. Looser
        // than on H2: PostgreSQL's commit (WAL flush) is inside the lock in both twins.
        assertThat(faulty).isLessThan(2.0);
        assertThat(fixed).isGreaterThan(1.5 * faulty);
    }
}
