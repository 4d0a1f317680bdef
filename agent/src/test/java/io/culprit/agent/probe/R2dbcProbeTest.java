package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
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
 * subscription to its last message, off the event loop's account, and alerted. The driver is
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
            long t0 = System.nanoTime();
            query(connection, sleep, s -> s);
            long sleptMs = (System.nanoTime() - t0) / 1_000_000;

            Map<String, Object> boundRow = CallRows.waitForRow(p, "sql", SqlText.normalize(bound), 12);
            assertThat(boundRow).containsEntry("count", 12L).containsEntry("database", "PostgreSQL")
                    .containsEntry("eventLoopMs", 0.0);
            assertThat(CallRows.waitForRow(p, "sql", SqlText.normalize(plain), 7)).containsEntry("count", 7L);
            Map<String, Object> slept = CallRows.waitForRow(p, "sql", SqlText.normalize(sleep), 1);
            assertThat((Double) slept.get("maxMs")).isBetween(140.0, sleptMs + 1.0);
            assertThat(slept).containsEntry("slowCount", 1L);
            assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("SLOW sql").contains("pg_sleep");
        } finally {
            Mono.from(connection.close()).block(Duration.ofSeconds(10));
        }
    }

    /** Runs one statement to its last row, as an application's reactive pipeline would. */
    private static void query(Connection connection, String sql, UnaryOperator<Statement> bind) {
        Flux.from(bind.apply(connection.createStatement(sql)).execute())
                .flatMap(result -> result.map((row, meta) -> String.valueOf(row.get(0))))
                .blockLast(Duration.ofSeconds(20));
    }
}
