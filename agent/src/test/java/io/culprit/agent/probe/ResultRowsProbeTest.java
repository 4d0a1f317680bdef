package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.culprit.agent.instrument.Instrumenter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.commons.dbcp2.BasicDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rows per statement, counted at the real drivers' and pools' result sets: H2 behind DBCP2, whose
 * result sets wrap the driver's, and behind HikariCP, whose proxy is left alone. The table that
 * is 500 rows long is read whole three times; a lookup per row of a 10-row result reads 3 rows
 * each, and the outer result keeps its count meanwhile.
 */
class ResultRowsProbeTest {

    private static BasicDataSource dbcp;
    private static HikariDataSource hikari;

    @BeforeAll
    static void dataSources() throws Exception {
        dbcp = new BasicDataSource();
        dbcp.setUrl("jdbc:h2:mem:rows;DB_CLOSE_DELAY=-1");
        dbcp.setMaxTotal(2);
        hikari = new HikariDataSource();
        hikari.setJdbcUrl("jdbc:h2:mem:rows;DB_CLOSE_DELAY=-1");
        hikari.setMaximumPoolSize(2);
        try (Connection con = dbcp.getConnection(); var s = con.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS parcel (id INT PRIMARY KEY, locker INT)");
            s.execute("MERGE INTO parcel SELECT X, MOD(X, 50) FROM SYSTEM_RANGE(1, 500)");
        }
        SqlWork.warm(dbcp);
        SqlWork.warm(hikari);
    }

    @AfterAll
    static void close() throws Exception {
        dbcp.close();
        hikari.close();
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void dbcpsWrappedResultsCountEachRowOnce() throws Exception {
        assertRows(dbcp);
    }

    @Test
    void hikarisProxiedResultsCountEachRowOnce() throws Exception {
        assertRows(hikari);
    }

    private static void assertRows(DataSource ds) throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        try (Connection con = ds.getConnection()) {
            for (int i = 0; i < 3; i++) assertThat(count(con, "SELECT id, locker FROM parcel")).isEqualTo(500);
            try (PreparedStatement outer = con.prepareStatement("SELECT id FROM parcel WHERE id <= 10 ORDER BY id");
                 ResultSet rs = outer.executeQuery()) {
                while (rs.next()) {
                    try (PreparedStatement inner = con.prepareStatement("SELECT id FROM parcel WHERE locker = ? AND id <= 150")) {
                        inner.setInt(1, rs.getInt(1));
                        int n = 0;
                        try (ResultSet in = inner.executeQuery()) {
                            while (in.next()) n++;
                        }
                        assertThat(n).isEqualTo(3);
                    }
                }
            }
        }
        Map<String, Object> whole = CallRows.row(p, "sql", "SELECT id, locker FROM parcel");
        assertThat(whole).containsEntry("count", 3L).containsEntry("resultSets", 3L).containsEntry("rows", 1500L)
                .containsEntry("rowsMax", 500L);
        assertThat(CallRows.row(p, "sql", "SELECT id FROM parcel WHERE locker = ? AND id <= ?"))
                .containsEntry("resultSets", 10L).containsEntry("rows", 30L).containsEntry("rowsMax", 3L);
        assertThat(CallRows.row(p, "sql", "SELECT id FROM parcel WHERE id <= ? ORDER BY id"))
                .containsEntry("resultSets", 1L).containsEntry("rows", 10L);
        assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("ROWS/EXEC")
                .containsPattern("SELECT id, locker FROM parcel .* 500\\.0  ");
    }

    private static int count(Connection con, String sql) throws SQLException {
        int n = 0;
        try (PreparedStatement ps = con.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) n++;
        }
        return n;
    }
}
