package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.culprit.agent.instrument.Instrumenter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The pool and SQL probes against a real HikariCP pool over a real (in-memory) H2 database. */
class PoolAndCallProbeTest {

    private static HikariDataSource ds;

    @BeforeAll
    static void pool() throws Exception {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl("jdbc:h2:mem:probe;DB_CLOSE_DELAY=-1");
        c.setMaximumPoolSize(2);
        c.setMinimumIdle(2);
        c.setConnectionTimeout(10_000);
        ds = new HikariDataSource(c);
        SqlWork.warm(ds);
    }

    @AfterAll
    static void close() {
        ds.close();
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void pendingIsPositiveOnlyWhileThePoolIsExhausted() throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        Connection a = ds.getConnection();
        Connection b = ds.getConnection();
        CompletableFuture<Connection> third = SqlWork.connectionLater(ds);
        Until.met(() -> pending(p) == 1.0);
        Map<String, Object> pool = onlyHikari(p);
        assertThat(pool).containsEntry("active", 2.0).containsEntry("pending", 1.0).containsEntry("total", 2.0);
        // The exhaustion lasts 50 ms, not just until this thread notices the waiter: an acquire counts
        // as waited from 1 ms (PoolProbe.WAITED_NS), and a waiter seen a moment after it started
        // could otherwise be served sooner.
        Thread.sleep(50);
        a.close();
        Connection c = third.get();
        Until.met(() -> pending(p) == 0.0);
        b.close();
        c.close();
        assertThat(onlyHikari(p)).containsEntry("pending", 0.0).containsEntry("active", 0.0);

        assertThat(ProbeContext.run(new PoolsCommand(), false).text()).containsPattern("hikari \\S+\\s+0\\s+2\\s+0\\s+2");
        ProbeContext json = ProbeContext.run(new PoolsCommand(), true);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) ((Map<String, Object>) json.data.get(0)).get("pools");
        assertThat(rows).filteredOn(r -> String.valueOf(r.get("pool")).startsWith("hikari ")).hasSize(1);
        // A sampler window saw the waiter (the third acquire) and the time it waited. Waited for, not
        // read at once: the first window to show an acquire may hold only the two fast ones.
        Until.met(() -> p.windows.series("pools") != null && max(p, "dbPending") == 1.0);
        assertThat(max(p, "dbAcquireMsMax")).isGreaterThan(0);
        assertThat(max(p, "dbUsageMsMax")).isGreaterThan(0);
        assertThat(p.pools.connectionPools.rows()).singleElement()
                .satisfies(r -> assertThat(r).containsEntry("library", "hikari").containsEntry("max", 2.0));
    }

    /**
     * Hikari checks a connection idle for over 500 ms before handing it out (here a 5 ms test query;
     * on PostgreSQL a round trip): a slow acquire beside idle connections with nobody waiting, as a
     * GC pause inside an acquire is. Neither is a waiter.
     */
    @Test
    void aSlowAcquireBesideIdleConnectionsIsNoWaiter() throws Exception {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl("jdbc:h2:mem:probe;DB_CLOSE_DELAY=-1");
        c.setMaximumPoolSize(2);
        c.setMinimumIdle(2);
        c.setConnectionTestQuery("CALL PAUSE(5)");
        try (HikariDataSource checked = new HikariDataSource(c)) {
            Probes p = Probes.ensure(ProbeContext.INST);
            checked.getConnection().close();  // links the hook's call sites (slow once) before the windows measured
            Until.met(() -> windows(p) > 0);
            int before = windows(p);
            Until.met(() -> windows(p) > before);
            int measured = windows(p);
            Thread.sleep(600);  // past Hikari's 500 ms alive-bypass window: the next acquire runs the test query
            checked.getConnection().close();
            Until.met(() -> windows(p) > measured);
            double[] acquireMs = p.windows.series("pools").column("dbAcquireMsMax").orElseThrow();
            assertThat(Arrays.stream(acquireMs, measured, acquireMs.length).max().orElse(0)).as("the acquire ran the 5 ms check")
                    .isGreaterThanOrEqualTo(5);
            double[] pending = p.windows.series("pools").column("dbPending").orElseThrow();
            assertThat(Arrays.copyOfRange(pending, measured, pending.length)).containsOnly(0.0);
        }
    }

    @Test
    void waitedMeansOthersWaitOrNoneIsIdle() {
        assertThat(PoolProbe.waited(0, 8)).isFalse();
        assertThat(PoolProbe.waited(0, 0)).isTrue();
        assertThat(PoolProbe.waited(3, 1)).isTrue();
        assertThat(PoolProbe.waited(Double.NaN, 5)).as("unreadable: counted, as before").isTrue();
    }

    @Test
    void aSlowStatementIsAlertedWithItsTextAndFastOnesAreNot() throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        // The first acquire after the weave also links the pool hook's call sites, which took 6-9 ms
        // when this class ran alone (the window it lands in reads one pending thread): that window
        // is closed before the acquires below.
        ds.getConnection().close();
        Until.met(() -> windows(p) > 0);
        int before = windows(p);
        Until.met(() -> windows(p) > before);
        int measured = windows(p);
        try (Connection con = ds.getConnection()) {
            for (int i = 0; i < 5; i++) {
                try (PreparedStatement ps = con.prepareStatement("SELECT " + i + " FROM DUAL WHERE 1 = ?")) {
                    ps.setInt(1, 1);
                    ps.executeQuery().close();
                }
            }
            try (PreparedStatement ps = con.prepareStatement("CALL PAUSE(?)")) {
                ps.setLong(1, 150);
                ps.execute();
            }
        }
        ProbeContext text = ProbeContext.run(new CallsCommand(), false);
        assertThat(text.text()).contains("SLOW sql").contains("CALL PAUSE(?)");
        List<Map<String, Object>> rows = p.calls.rows(0, 0);
        Map<String, Object> slow = rows.get(0);
        assertThat(slow).containsEntry("target", "CALL PAUSE(?)").containsEntry("count", 1L).containsEntry("slowCount", 1L);
        assertThat((double) slow.get("maxMs")).isGreaterThanOrEqualTo(150);
        Map<String, Object> fast = rows.stream().filter(r -> "SELECT ? FROM DUAL WHERE ? = ?".equals(r.get("target")))
                .findFirst().orElseThrow();
        assertThat(fast).containsEntry("count", 5L).containsEntry("slowCount", 0L);
        // The product the driver reports, read once per statement, so that advice speaks H2's dialect.
        assertThat((String) slow.get("database")).startsWith("H2 2.");
        assertThat((String) fast.get("database")).isEqualTo(slow.get("database"));
        // One connection at a time in a pool of two: nobody waited, in any window since.
        Until.met(() -> windows(p) > measured);
        double[] pending = p.windows.series("pools").column("dbPending").orElseThrow();
        assertThat(Arrays.copyOfRange(pending, measured, pending.length)).containsOnly(0.0);
    }

    @Test
    void aStatementKeepsTheApplicationCodeItWasCalledFrom() throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(acme.RecentOrders.list(new acme.OrderLines(ds), 12)).isEqualTo(12);
        Map<String, Object> row = CallRows.row(p, "sql", "SELECT ? + ? FROM DUAL");
        assertThat(row).containsEntry("count", 12L);
        // Above the pool's proxies and H2: the repository method, then the loop that called it.
        assertThat((String) row.get("caller")).startsWith("acme.OrderLines.lines:");
        assertThat((String) row.get("callPath")).matches("acme\\.OrderLines\\.lines:\\d+ ← acme\\.RecentOrders\\.list:\\d+");
        assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("PER REQ", "acme.OrderLines.lines:");
    }

    @Test
    void theCallStackKeepsTheLoopInTheFindersOwnClassThatThePathFoldsAway() throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(new acme.OrderLines(ds).allLines(12)).isEqualTo(12);
        Map<String, Object> row = CallRows.row(p, "sql", "SELECT ? + ? FROM DUAL");
        // The path keeps a frame per class, so the loop in OrderLines is not on it; the stack has it.
        assertThat((String) row.get("callPath")).startsWith("acme.OrderLines.lines:").doesNotContain("allLines");
        assertThat((String) row.get("callStack")).matches("acme\\.OrderLines\\.lines:\\d+ ← acme\\.OrderLines\\.allLines:\\d+ ← .*");
    }

    @Test
    void renewStartsCountingAfreshOnTheSameWeaving() throws Exception {
        Probes first = Probes.ensure(ProbeContext.INST);
        int liveBefore = Instrumenter.liveCount();
        query("SELECT 1");
        assertThat(first.calls.calls).isNotEmpty();
        Probes second = Probes.renew(ProbeContext.INST);
        assertThat(second).isNotSameAs(first);
        assertThat(Probes.current()).isSameAs(second);
        assertThat(second.woven).isEqualTo(first.woven);
        assertThat(Instrumenter.liveCount()).as("no new installation: nothing retransformed").isEqualTo(liveBefore);
        assertThat(second.calls.calls).isEmpty();
        query("SELECT 2");
        assertThat(second.calls.rows(0, 0)).singleElement().satisfies(r -> assertThat(r).containsEntry("count", 1L));
        assertThat(first.calls.rows(0, 0)).singleElement().satisfies(r -> assertThat(r).containsEntry("count", 1L));
    }

    @Test
    void statementsRunOnAnEventLoopsThreadAreMarkedAsBlockingIt() throws Exception {
        Probes p = Probes.renew(ProbeContext.INST);
        query("SELECT 1 AS plain");
        Thread loop = new Thread(() -> {
            try {
                query("SELECT 1 AS onloop");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "reactor-http-nio-2");
        loop.start();
        loop.join();
        List<Map<String, Object>> rows = p.calls.rows(0, 0);
        assertThat(rows).hasSize(2);
        for (Map<String, Object> r : rows) {
            double onLoop = ((Number) r.get("eventLoopMs")).doubleValue();
            if (String.valueOf(r.get("target")).toLowerCase().contains("onloop")) {
                assertThat(onLoop).as("the loop thread's statement").isEqualTo(((Number) r.get("totalMs")).doubleValue()).isPositive();
            } else {
                assertThat(onLoop).as("a plain thread's").isZero();
            }
        }
    }

    @Test
    void connectionsOpenedThroughDriverManagerAreCallsWithoutTheirCredentials() throws Exception {
        Probes p = Probes.renew(ProbeContext.INST);
        for (int i = 0; i < 3; i++) {
            try (Connection con = java.sql.DriverManager.getConnection("jdbc:h2:mem:unpooled;DB_CLOSE_DELAY=-1", "sa", "secret")) {
                assertThat(con.isValid(1)).isTrue();
            }
        }
        query("SELECT 1");  // through the pool: its connections are already open, and pools open theirs through the driver
        Map<String, Object> row = CallRows.row(p, "db-connect", "connect jdbc:h2:mem:unpooled");
        assertThat(row).containsEntry("count", 3L);
        assertThat(p.calls.rows(0, 0)).filteredOn(r -> "db-connect".equals(r.get("kind"))).hasSize(1);
        assertThat(JdbcConnectHooks.withoutParameters("jdbc:postgresql://u:pw@db:5432/app?password=x")).isEqualTo("jdbc:postgresql://db:5432/app");
    }

    private static void query(String sql) throws Exception {
        try (Connection con = ds.getConnection(); Statement s = con.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void resetRemovesTheProbesAndTheyCountNothingMore() throws Exception {
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(PoolProbe.HIKARI_POOL));
        Instrumenter.resetAll();
        assertThat(Probes.current()).isNull();
        try (Connection con = ds.getConnection(); Statement s = con.createStatement()) {
            s.execute("SELECT 1");
        }
        assertThat(p.calls.calls).isEmpty();
        assertThat(p.pools.connectionPools.found()).isEmpty();
    }

    private static double pending(Probes p) {
        List<Map<String, Object>> rows = hikariRows(p);
        return rows.isEmpty() ? -1 : (double) rows.get(0).get("pending");
    }

    /** Hikari's own housekeeping executors show as "executor" rows too: only the pool's row here. */
    private static List<Map<String, Object>> hikariRows(Probes p) {
        return p.pools.describe().stream().filter(r -> String.valueOf(r.get("pool")).startsWith("hikari ")).collect(Collectors.toList());
    }

    private static Map<String, Object> onlyHikari(Probes p) {
        List<Map<String, Object>> rows = hikariRows(p);
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    /** Windows of series pools the sampler has written so far. */
    private static int windows(Probes p) {
        return p.windows.series("pools") == null ? 0 : p.windows.series("pools").column("dbPending").orElseThrow().length;
    }

    private static double max(Probes p, String column) {
        return PoolRows.max(p, column);
    }

    /** Polls a real condition; fails after 10 s. */
}
