package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reactive SQL through the real R2DBC PostgreSQL driver against the PostgreSQL server on
 * 127.0.0.1:5432: parameterized (extended protocol) and plain (simple protocol) queries are
 * counted by their normalized text, and a query the server holds for 150 ms is timed from
 * subscription to the server's last message, off the event loop's account, and alerted; a query
 * whose rows are read slowly is timed to the server's answer, not to its subscriber's last read;
 * one the server refuses counts as failed. The driver is
 * used once before the probes start (only loaded classes are woven).
 */
class R2dbcProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void queriesAreTimedFromSubscriptionToTheirLastMessage() throws Exception {
        assumeTrue(CallRows.postgresUp(), "no PostgreSQL on 127.0.0.1:5432");
        PostgresqlConnectionFactory factory = new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder()
                .host("127.0.0.1").port(5432).username("postgres").database("postgres").build());
        Connection connection = Mono.from(factory.create()).block(Duration.ofSeconds(20));
        try {
            String bound = "SELECT $1::int + 1", plain = "SELECT 42", sleep = "SELECT pg_sleep(0.15)";
            query(connection, bound, s -> s.bind("$1", 1));  // loads and links the driver's classes before the weave
            query(connection, plain, s -> s);
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(R2dbcPostgresHooks.CONVERSATION + ".<init>"))
                    .anyMatch(w -> w.startsWith(R2dbcPostgresHooks.CONVERSATION + ".complete"));
            p.thresholds.sqlMs = 100;  // above what a trivial query takes even on a loaded machine, below the sleep
            for (int i = 0; i < 12; i++) {
                int n = i;
                query(connection, bound, s -> s.bind("$1", n));
            }
            for (int i = 0; i < 7; i++) query(connection, plain, s -> s);
            // A subscriber that takes its rows slowly (a query per row, here a timer) keeps the conversation open
            // long after the server answered: that time is the pipeline's, not the database's.
            String rows = "SELECT generate_series(1, $1)";
            long c0 = System.nanoTime();
            Flux.from(connection.createStatement(rows).bind("$1", 100).execute())
                    .flatMap(result -> result.map((row, meta) -> String.valueOf(row.get(0))))
                    .concatMap(row -> Mono.delay(Duration.ofMillis(5)), 1)
                    .blockLast(Duration.ofSeconds(20));
            long consumedMs = (System.nanoTime() - c0) / 1_000_000;
            String missing = "SELECT culprit_no_such_column FROM pg_class WHERE oid = $1";
            try {
                query(connection, missing, s -> s.bind("$1", 1));
            } catch (RuntimeException expected) {
                // the server's ErrorResponse, as the driver raises it
            }
            long t0 = System.nanoTime();
            query(connection, sleep, s -> s);
            long sleptMs = (System.nanoTime() - t0) / 1_000_000;

            Map<String, Object> boundRow = CallRows.waitForRow(p, "sql", SqlText.normalize(bound), 12);
            assertThat(boundRow).containsEntry("count", 12L).containsEntry("database", "PostgreSQL").containsEntry("reactiveClient", "r2dbc-postgresql")
                    .containsEntry("eventLoopMs", 0.0);
            assertThat(CallRows.waitForRow(p, "sql", SqlText.normalize(plain), 7)).containsEntry("count", 7L).containsEntry("errors", 0L);
            assertThat(CallRows.waitForRow(p, "sql", SqlText.normalize(missing), 1)).containsEntry("errors", 1L);
            Map<String, Object> slept = CallRows.waitForRow(p, "sql", SqlText.normalize(sleep), 1);
            assertThat((Double) slept.get("maxMs")).isBetween(140.0, sleptMs + 1.0);
            assertThat(slept).containsEntry("slowCount", 1L);
            assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("SLOW sql").contains("pg_sleep");
            Map<String, Object> slowlyRead = CallRows.waitForRow(p, "sql", SqlText.normalize(rows), 1);
            assertThat(consumedMs).isGreaterThanOrEqualTo(500);
            assertThat((Double) slowlyRead.get("maxMs")).as("the server's time, not the %d ms its rows took to be read", consumedMs)
                    .isLessThan(consumedMs / 4.0);
        } finally {
            Mono.from(connection.close()).block(Duration.ofSeconds(10));
        }
    }

    @Test
    void r2dbcsPoolIsFoundAtItsFirstAcquireAndReadOnceASecond() throws Exception {
        assumeTrue(CallRows.postgresUp(), "no PostgreSQL on 127.0.0.1:5432");
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(new PostgresqlConnectionFactory(
                PostgresqlConnectionConfiguration.builder().host("127.0.0.1").port(5432).username("postgres").database("postgres").build()))
                .initialSize(1).maxSize(2).build());
        Connection first = Mono.from(pool.create()).block(Duration.ofSeconds(20));  // loads the pool's classes before the weave
        try {
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(PoolProbe.R2DBC_POOL + ".create"));
            Connection second = Mono.from(pool.create()).block(Duration.ofSeconds(20));
            // Both connections lent: a third subscriber waits for one.
            var third = Mono.from(pool.create()).toFuture();
            assertThat(CallRows.until(() -> p.windows.lastPools().getOrDefault("dbPending", 0.0) >= 1)).as("the waiting acquire, once a second").isTrue();
            Map<String, Double> row = p.windows.lastPools();
            assertThat(row).containsEntry("dbActive", 2.0).containsEntry("dbTotal", 2.0);
            assertThat(p.pools.connectionPools.rows()).anyMatch(r -> "r2dbc-pool".equals(r.get("library")) && Double.valueOf(2).equals(r.get("max")));
            Mono.from(second.close()).block(Duration.ofSeconds(10));
            Mono.from(third.get(10, java.util.concurrent.TimeUnit.SECONDS).close()).block(Duration.ofSeconds(10));
        } finally {
            Mono.from(first.close()).block(Duration.ofSeconds(10));
            pool.dispose();
        }
    }


    /** Runs one statement to its last row, as an application's reactive pipeline would. */
    private static void query(Connection connection, String sql, UnaryOperator<Statement> bind) {
        Flux.from(bind.apply(connection.createStatement(sql)).execute())
                .flatMap(result -> result.map((row, meta) -> String.valueOf(row.get(0))))
                .blockLast(Duration.ofSeconds(20));
    }
}
