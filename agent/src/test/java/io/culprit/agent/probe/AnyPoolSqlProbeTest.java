package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.culprit.agent.instrument.Instrumenter;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SQL is timed at whatever implements JDBC, not at one pool's classes: here Tomcat's JDBC pool,
 * whose connections and statements are JDK dynamic proxies (no class of its own to weave), and
 * H2's own DataSource with no pool at all. Before, neither had any SQL in its calls table. Each
 * execution counts once, with its text, called from the application's code above the pool.
 */
class AnyPoolSqlProbeTest {

    private static org.apache.tomcat.jdbc.pool.DataSource tomcat;
    private static JdbcDataSource driverOnly;

    @BeforeAll
    static void dataSources() throws Exception {
        tomcat = new org.apache.tomcat.jdbc.pool.DataSource();
        tomcat.setUrl("jdbc:h2:mem:anypool;DB_CLOSE_DELAY=-1");
        tomcat.setDriverClassName("org.h2.Driver");
        tomcat.setMaxActive(2);
        tomcat.setInitialSize(1);
        driverOnly = new JdbcDataSource();
        driverOnly.setURL("jdbc:h2:mem:anypool;DB_CLOSE_DELAY=-1");
        SqlWork.warm(tomcat);
        SqlWork.warm(driverOnly);
    }

    @AfterAll
    static void close() {
        tomcat.close();
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void tomcatsProxiedStatementsAreTimedOnceEachFromTheApplicationsCode() throws Exception {
        assertTimedOnceEach(tomcat);
    }

    @Test
    void theDriverAloneIsTimedToo() throws Exception {
        assertTimedOnceEach(driverOnly);
    }

    private static void assertTimedOnceEach(DataSource ds) throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(acme.RecentOrders.list(new acme.OrderLines(ds), 12)).isEqualTo(12);
        try (Connection con = ds.getConnection()) {
            SqlWork.slowThenPlain(con);
        }
        List<Map<String, Object>> rows = p.calls.rows(0, 0);
        assertThat(rows).filteredOn(r -> "sql".equals(r.get("kind"))).extracting(r -> r.get("target"), r -> r.get("count"))
                .containsExactlyInAnyOrder(tuple("SELECT ? + ? FROM DUAL", 12L), tuple("CALL PAUSE(?)", 1L), tuple("SELECT ?", 1L));
        Map<String, Object> lines = CallRows.row(p, "sql", "SELECT ? + ? FROM DUAL");
        // Above the pool's proxies and the driver: the repository method, then the loop that called it.
        assertThat((String) lines.get("callPath")).matches("acme\\.OrderLines\\.lines:\\d+ ← acme\\.RecentOrders\\.list:\\d+");
        Map<String, Object> slow = CallRows.row(p, "sql", "CALL PAUSE(?)");
        assertThat(slow).containsEntry("slowCount", 1L);
        assertThat((double) slow.get("maxMs")).isGreaterThanOrEqualTo(150);
    }
}
