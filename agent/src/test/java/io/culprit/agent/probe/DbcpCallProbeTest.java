package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Map;
import org.apache.commons.dbcp2.BasicDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SQL probe against a real Commons DBCP2 pool over a real (in-memory) H2 database. Its
 * wrappers wrap one another (the pool's guard around the pooled connection, and with pooled
 * prepared statements a pooled statement around the driver's): each execution counts once.
 * Before, a service on DBCP2 had no SQL in its calls table at all.
 */
class DbcpCallProbeTest {

    private static BasicDataSource ds;

    @BeforeAll
    static void pool() throws Exception {
        ds = new BasicDataSource();
        ds.setUrl("jdbc:h2:mem:dbcp;DB_CLOSE_DELAY=-1");
        ds.setMaxTotal(2);
        ds.setPoolPreparedStatements(true);
        SqlWork.warm(ds);
    }

    @AfterAll
    static void close() throws Exception {
        ds.close();
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void statementsThroughDbcpWrappersAreTimedOnceEachWithTheirText() throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        try (Connection con = ds.getConnection()) {
            for (int i = 0; i < 5; i++) {
                try (PreparedStatement ps = con.prepareStatement("SELECT X FROM SYSTEM_RANGE(1, 3) WHERE X = ?")) {
                    ps.setInt(1, i);
                    ps.executeQuery().close();
                }
            }
            SqlWork.slowThenPlain(con);
        }
        List<Map<String, Object>> rows = p.calls.rows(0, 0);
        assertThat(rows).filteredOn(r -> "sql".equals(r.get("kind"))).extracting(r -> r.get("target"), r -> r.get("count"))
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("CALL PAUSE(?)", 1L),
                        org.assertj.core.groups.Tuple.tuple("SELECT X FROM SYSTEM_RANGE(?, ?) WHERE X = ?", 5L),
                        org.assertj.core.groups.Tuple.tuple("SELECT ?", 1L));
        Map<String, Object> slow = rows.stream().filter(r -> "CALL PAUSE(?)".equals(r.get("target"))).findFirst().orElseThrow();
        assertThat(slow).containsEntry("slowCount", 1L);
        assertThat((double) slow.get("maxMs")).isGreaterThanOrEqualTo(150);
    }
}
