package io.culprit.agent.probe;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** What the SQL probe's tests run on H2, whatever pool is in front of it. */
final class SqlWork {

    private SqlWork() { }

    /**
     * Defines {@code PAUSE(ms)} and runs a statement of each kind once, loading the classes the
     * probes weave, as a service that has served traffic has.
     */
    static void warm(DataSource ds) throws SQLException {
        try (Connection con = ds.getConnection(); Statement s = con.createStatement()) {
            s.execute("CREATE ALIAS IF NOT EXISTS PAUSE FOR \"java.lang.Thread.sleep(long)\"");
            try (PreparedStatement ps = con.prepareStatement("SELECT 1")) {
                ps.executeQuery().close();
            }
        }
    }

    /** An acquire from {@code ds} on another thread: it waits there while the pool is exhausted. */
    static java.util.concurrent.CompletableFuture<Connection> connectionLater(DataSource ds) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return ds.getConnection();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** A prepared {@code CALL PAUSE(?)} of 150 ms (a slow statement), then a plain {@code SELECT 42}. */
    static void slowThenPlain(Connection con) throws SQLException {
        try (PreparedStatement ps = con.prepareStatement("CALL PAUSE(?)")) {
            ps.setLong(1, 150);
            ps.execute();
        }
        try (Statement s = con.createStatement()) {
            s.executeQuery("SELECT 42").close();
        }
    }
}
