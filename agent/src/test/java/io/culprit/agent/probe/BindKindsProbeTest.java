package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.culprit.agent.instrument.Instrumenter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.apache.commons.dbcp2.BasicDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How each statement's parameters were bound, read at H2's own statement behind HikariCP and
 * behind DBCP2: the same text bound with setLong and with setString are told apart, and
 * setObject is read by its value's class.
 */
class BindKindsProbeTest {

    private static HikariDataSource hikari;
    private static BasicDataSource dbcp;

    @BeforeAll
    static void dataSources() throws Exception {
        hikari = new HikariDataSource();
        hikari.setJdbcUrl("jdbc:h2:mem:binds;DB_CLOSE_DELAY=-1");
        hikari.setMaximumPoolSize(2);
        dbcp = new BasicDataSource();
        dbcp.setUrl("jdbc:h2:mem:binds;DB_CLOSE_DELAY=-1");
        dbcp.setMaxTotal(2);
        try (Connection con = hikari.getConnection(); var s = con.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS recipient (phone VARCHAR(16) PRIMARY KEY, name VARCHAR(40))");
            s.execute("MERGE INTO recipient VALUES ('48500012345', 'Ola')");
        }
        SqlWork.warm(hikari);
        SqlWork.warm(dbcp);
    }

    @AfterAll
    static void close() throws Exception {
        hikari.close();
        dbcp.close();
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void behindHikari() throws Exception {
        assertBinds(hikari);
    }

    @Test
    void behindDbcp() throws Exception {
        assertBinds(dbcp);
    }

    private static void assertBinds(DataSource ds) throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        try (Connection con = ds.getConnection()) {
            try (PreparedStatement ps = con.prepareStatement("SELECT name FROM recipient WHERE phone = ? AND name <> ?")) {
                ps.setLong(1, 48500012345L);
                ps.setString(2, "x");
                read(ps);
            }
            try (PreparedStatement ps = con.prepareStatement("SELECT name FROM recipient WHERE phone = ?")) {
                ps.setString(1, "48500012345");
                read(ps);
            }
            try (PreparedStatement ps = con.prepareStatement("SELECT name FROM recipient WHERE phone IN (?, ?, ?)")) {
                ps.setObject(1, 48500012345L);
                ps.setObject(2, "48500012345");
                ps.setObject(3, java.sql.Date.valueOf("2026-12-01"));
                read(ps);
            }
        }
        assertThat(CallRows.row(p, "sql", "SELECT name FROM recipient WHERE phone = ? AND name <> ?")).containsEntry("binds", "number,string");
        assertThat(CallRows.row(p, "sql", "SELECT name FROM recipient WHERE phone = ?")).containsEntry("binds", "string");
        assertThat(CallRows.row(p, "sql", "SELECT name FROM recipient WHERE phone IN (?, ...)")).containsEntry("binds", "number,string,other");
    }

    private static void read(PreparedStatement ps) throws Exception {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) rs.getString(1);
        }
    }
}
