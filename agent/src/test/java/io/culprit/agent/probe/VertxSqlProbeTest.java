package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SQL through the real Vert.x PostgreSQL client and its pool, against the PostgreSQL server on
 * 127.0.0.1:5432: prepared and plain queries are counted by their normalized text, a query the
 * server holds for 150 ms is timed and alerted, one the server refuses counts as failed, and the
 * driver's own prepares are not counted as queries. The client is used once before the probes
 * start (only loaded classes are woven).
 */
class VertxSqlProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void queriesAreTimedFromTheirScheduleToTheirResponse() throws Exception {
        assumeTrue(CallRows.postgresUp(), "no PostgreSQL on 127.0.0.1:5432");
        Vertx vertx = Vertx.vertx();
        Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(2))
                .connectingTo(new PgConnectOptions().setHost("127.0.0.1").setPort(5432).setUser("postgres").setDatabase("postgres"))
                .using(vertx).build();
        try {
            String bound = "SELECT $1::int + 1", plain = "SELECT 42", sleep = "SELECT pg_sleep(0.15)";
            await(pool.preparedQuery(bound).execute(Tuple.of(1)));  // loads the client's classes before the weave
            await(pool.query(plain).execute());
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(VertxSqlHooks.CONNECTION + ".schedule"))
                    .anyMatch(w -> w.startsWith("io.vertx.sqlclient.internal.command.CommandResponse.fire"));
            p.thresholds.sqlMs = 100;  // above what a trivial query takes even on a loaded machine, below the sleep
            for (int i = 0; i < 12; i++) await(pool.preparedQuery(bound).execute(Tuple.of(i)));
            for (int i = 0; i < 7; i++) await(pool.query(plain).execute());
            String missing = "SELECT culprit_no_such_column FROM pg_class WHERE oid = $1";
            try {
                await(pool.preparedQuery(missing).execute(Tuple.of(1)));
            } catch (Exception expected) {
                // the server's ErrorResponse, as the client fails the query with it
            }
            long t0 = System.nanoTime();
            await(pool.query(sleep).execute());
            long sleptMs = (System.nanoTime() - t0) / 1_000_000;

            Map<String, Object> boundRow = CallRows.waitForRow(p, "sql", SqlText.normalize(bound), 12);
            assertThat(boundRow).as("12 executions, the driver's prepare not among them").containsEntry("count", 12L)
                    .containsEntry("database", "PostgreSQL").containsEntry("reactiveClient", "vertx-sql-client");
            assertThat(CallRows.waitForRow(p, "sql", SqlText.normalize(plain), 7)).containsEntry("count", 7L).containsEntry("errors", 0L);
            assertThat(CallRows.waitForRow(p, "sql", SqlText.normalize(missing), 1)).containsEntry("errors", 1L);
            Map<String, Object> slept = CallRows.waitForRow(p, "sql", SqlText.normalize(sleep), 1);
            assertThat((Double) slept.get("maxMs")).isBetween(140.0, sleptMs + 1.0);
            assertThat(slept).containsEntry("slowCount", 1L);
            assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("SLOW sql").contains("pg_sleep");
        } finally {
            await(pool.close());
            await(vertx.close());
        }
    }

    @Test
    void thePoolIsFoundAtItsFirstLendAndReadOnceASecond() throws Exception {
        assumeTrue(CallRows.postgresUp(), "no PostgreSQL on 127.0.0.1:5432");
        Vertx vertx = Vertx.vertx();
        Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(2))
                .connectingTo(new PgConnectOptions().setHost("127.0.0.1").setPort(5432).setUser("postgres").setDatabase("postgres"))
                .using(vertx).build();
        SqlConnection first = await(pool.getConnection());  // loads the pool's classes before the weave
        try {
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(PoolProbe.VERTX_SQL_POOL + ".acquire"));
            SqlConnection second = await(pool.getConnection());
            // Both connections lent: a third acquire waits for one.
            Future<SqlConnection> third = pool.getConnection();
            assertThat(CallRows.until(() -> p.windows.lastPools().getOrDefault("dbPending", 0.0) >= 1)).as("the waiting acquire, once a second").isTrue();
            Map<String, Double> row = p.windows.lastPools();
            assertThat(row).containsEntry("dbActive", 2.0).containsEntry("dbTotal", 2.0).containsEntry("dbIdle", 0.0);
            assertThat(p.pools.connectionPools.rows()).anyMatch(r -> "vertx-sql-client".equals(r.get("library")) && Double.valueOf(2).equals(r.get("max")));
            await(second.close());
            await(await(third).close());
            assertThat(CallRows.until(() -> p.windows.lastPools().getOrDefault("dbActive", -1.0) == 1.0)).as("one lent after two came back").isTrue();
        } finally {
            await(first.close());
            await(pool.close());
            await(vertx.close());
        }
    }


    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }
}
