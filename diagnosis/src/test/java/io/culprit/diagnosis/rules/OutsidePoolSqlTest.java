package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Spring MVC services written outside the lab on PostgreSQL through pools other than HikariCP,
 * recorded by {@code culprit diagnose}: an order page that reads its 40 lines, then each line's
 * product by its id; their fixed twins read the page in one join.
 * <ul>
 * <li>Commons DBCP2 (session 26, 8 connections). The agent timed SQL only at HikariCP's proxies,
 * so this N+1 read "No root cause found" (its calls table held no SQL).
 * <li>c3p0 (session 27, 10 connections), SQL timed at whatever implements JDBC. Before, its calls
 * table held no SQL and the verdict was lock-contention WARN on c3p0's own pool
 * ({@code BasicResourcePool.awaitAvailable}: each of the 41 statements a request runs checks a
 * connection out), a symptom of the N+1, which is now named and that wait a contributor.
 * <li>Tomcat's JDBC pool (session 27, 4 connections, 16 connections of load): each request filters
 * 200,000 rows on unindexed columns. Requests queue for a connection, parked on a latch per waiter
 * in Tomcat's FairBlockingQueue, which lock-contention read as "work handed to other threads" with
 * the hand-off's cure (Hystrix, bulkheads). It now reads a wait inside a pool's getConnection as a
 * wait for a connection and names the statement the connections are busy with.
 * <li>The same service indexed and driven to its capacity, on Tomcat's pool and on HikariCP (session
 * 28, the pools' series now read for Tomcat's pool too). Requests wait at the pool, yet half its
 * connections are free: the waiters wait for a core. Lock-contention (Tomcat) and pool-size
 * (HikariCP, "97 % utilised") named the pool; it is where a service at its CPU capacity queues.
 * <li>Jetty and HikariCP over MariaDB (session 29): a statement of 25 ms in the database, 64 users. A
 * pool of 10 is too small; its twin of 64 is as busy as the load's 64 users and read pool-size WARN
 * "98 % utilised, 1 thread pending" from one warm-up waiter, and the statement's advice was
 * PostgreSQL's ({@code EXPLAIN (ANALYZE, BUFFERS)}, an unnamed index), which MariaDB rejects.
 * <li>The same service numbering orders from a counter row, then asking a remote fraud check in the
 * same transaction (session 29). InnoDB's waits are socket reads under the UPDATE, read as "likely a
 * row lock", WARN, with the counter's cure; the call the lock was held across went unnamed, as the
 * client was called from the transaction's method rather than beside it.
 * </ul>
 */
class OutsidePoolSqlTest {

    @Test
    void anNPlusOneThroughDbcpIsNamedWithItsStatementAndTheApplicationsCaller() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-dbcp-n-plus-one"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.order:42");
        assertThat(f.summary()).startsWith("sql \"SELECT name, price FROM blind15_product WHERE id = ?\" runs 40 times per request"
                + " (305,640 calls, 0.2 ms each), 45 % of request time; called from blind.App.order:42");
    }

    @Test
    void anNPlusOneThroughC3p0IsNamedAndItsPoolsWaitContributes() {
        Evidence ev = Fixtures.evidence("outside-c3p0-n-plus-one");
        Finding f = new ChattyCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.order:59");
        assertThat(f.summary()).startsWith("sql \"SELECT name, price FROM blind16_product WHERE id = ?\" runs 40 times per request"
                + " (475,600 calls, 0.2 ms each), 59 % of request time; called from blind.App.order:59");
        Diagnosis.Result r = Diagnosis.run(CaseFile.open(Fixtures.dir("outside-c3p0-n-plus-one")));
        assertThat(r.top().orElseThrow().id()).isEqualTo("chatty-calls");
        assertThat(r.finding("lock-contention").orElseThrow().summary()).contains("com.mchange.v2.resourcepool.BasicResourcePool (wait");
    }

    @Test
    void requestsQueuedForATomcatPoolConnectionNameTheStatementHoldingThem() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-tomcat-pool-scan"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("SELECT sku, qty FROM blind17_stock WHERE qty < ? AND note LIKE ? LIMIT ?");
        assertThat(f.summary()).startsWith("threads spent 175 s blocked (69 % of request time) on java.util.concurrent.CountDownLatch$Sync"
                + " (park, 2,480 events), waiting for a pooled database connection, waiters at org.apache.tomcat.jdbc.pool.FairBlockingQueue.poll:156")
                .endsWith("; the connections are busy with sql \"SELECT sku, qty FROM blind17_stock WHERE qty < ? AND note...\", 23.5 ms each,"
                        + " 3.7 running on average (Little's Law).")
                .doesNotContain("handed to other threads");
        assertThat(f.fix()).contains("CREATE INDEX ON blind17_stock (qty, note)", "size the pool to rate × hold time");
        assertThat(LockContentionRule.inPoolCheckout(java.util.List.of("java.lang.Object.wait", "java.sql.DriverManager.getConnection:683")))
                .as("the JDK's DriverManager opens a connection, no pool lends one").isFalse();
        assertThat(LockContentionRule.inPoolCheckout(java.util.List.of("org.apache.commons.pool2.impl.GenericObjectPool.borrowObject:285",
                "org.springframework.data.redis.connection.jedis.JedisConnectionFactory.getConnection:831")))
                .as("a Redis client lent by Spring Data Redis is no database connection").isFalse();
    }

    @Test
    void oneJoinLeavesNoRepeatedCall() {
        assertThat(new ChattyCallsRule().evaluate(Fixtures.evidence("outside-c3p0-join")).severity()).isEqualTo(Severity.OK);
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-dbcp-join"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("no call target repeated 10 or more times per request");
    }

    @Test
    void aServiceAtItsCpuCapacityQueuesAtThePoolWithConnectionsFree() {
        Evidence tomcat = Fixtures.evidence("outside-tomcat-pool-saturated");
        Finding lock = new LockContentionRule().evaluate(tomcat);
        assertThat(lock.severity()).isEqualTo(Severity.INFO);
        assertThat(lock.summary()).contains("waiting for a pooled database connection")
                .contains("this JVM keeps the CPU saturated (100 % at p90, 73 % of it this JVM), and while threads waited 2.6 of the"
                        + " pool's 4 connections were free on average: the waiters waited for a core to take them, not for a connection")
                .doesNotContain("the connections are busy with sql");
        assertThat(lock.culprit()).isNotEqualTo("SELECT sku, qty FROM blind17_stock WHERE qty < ? AND note LIKE ? LIMIT ?");
        assertThat(lock.fix()).startsWith("Nothing to change at the pool.");
        Finding size = new PoolSizeRule().evaluate(Fixtures.evidence("outside-hikari-pool-saturated"));
        assertThat(size.severity()).isEqualTo(Severity.INFO);
        assertThat(size.summary()).startsWith("Little's Law: 1,220 rps × 2.1 ms usage = 2.5 connections busy on average, pool has 4 (63 % utilised)")
                .contains("while threads waited 2.0 of the pool's 4 connections were free").endsWith("; the pool is not what limits the service.");
        assertThat(new PoolStarvationRule().evaluate(Fixtures.evidence("outside-hikari-pool-saturated")).severity()).isEqualTo(Severity.INFO);
    }

    @Test
    void aPoolHeldByASlowStatementHasNoConnectionFree() {
        Evidence ev = Fixtures.evidence("outside-tomcat-pool-scan-series");
        assertThat(CpuBoundPool.clause(ev, new io.culprit.diagnosis.Numbers())).isNull();
        Finding lock = new LockContentionRule().evaluate(ev);
        assertThat(lock.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(lock.summary()).contains("the connections are busy with sql");
        Finding size = new PoolSizeRule().evaluate(ev);
        assertThat(size.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(size.confirm()).contains("monitor org.apache.tomcat.jdbc.pool.ConnectionPool getConnection -c 5");
        assertThat(new PoolStarvationRule().evaluate(ev).confirm()).contains("watch org.apache.tomcat.jdbc.pool.ConnectionPool getConnection");
    }

    @Test
    void aPoolTooSmallOnMariaDbIsNamedAndItsTwinAsBusyAsTheLoadIsNot() {
        Finding small = new PoolSizeRule().evaluate(Fixtures.evidence("outside-mariadb-pool-small"));
        assertThat(small.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(small.summary()).startsWith("Little's Law: 415 rps × 25.7 ms usage = 10.7 connections busy on average, pool has 10");

        Evidence sized = Fixtures.evidence("outside-mariadb-pool-small-fixed");
        Finding pool = new PoolSizeRule().evaluate(sized);
        assertThat(pool.severity()).isEqualTo(Severity.INFO);
        assertThat(pool.summary()).contains("pool has 64 (98 % utilised), 1 threads pending at most, none in the last third of the run");
        Finding slow = new SlowCallsRule().evaluate(sized);
        assertThat(slow.fix()).contains("(ANALYZE FORMAT=JSON)", "CREATE INDEX idx_blind19_accounts_id ON blind19_accounts (id)",
                "ANALYZE TABLE blind19_accounts").doesNotContain("BUFFERS");
        assertThat(slow.confirm()).contains("in MariaDB: ANALYZE FORMAT=JSON SELECT owner, balance");
    }

    @Test
    void aRowLockHeldAcrossARemoteCallOnMariaDbNamesTheCall() {
        Finding f = new DbRowLockRule().evaluate(Fixtures.evidence("outside-mariadb-row-lock-across-call"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$OrderNumbers.place");
        assertThat(f.summary()).contains("56 % of their time blocked in executeUpdate", "\"UPDATE blind19_counters SET n = n + ? WHERE name = ?\"",
                "the same code then calls http \"GET http://127.0.0.1:18191/check\" at blind.App$FraudClient.check:87 (17 ms a call)");
        assertThat(f.fix()).startsWith("Take the remote call out of the transaction");
        assertThat(f.confirm()).contains("MariaDB: SELECT * FROM information_schema.INNODB_LOCK_WAITS");

        Finding fixed = new DbRowLockRule().evaluate(Fixtures.evidence("outside-mariadb-row-lock-across-call-fixed"));
        assertThat(fixed.severity()).isEqualTo(Severity.WARN);
        assertThat(fixed.summary()).contains("13 % of their time").doesNotContain("calls http");
        assertThat(fixed.fix()).startsWith("Stop updating one hot row per request");
    }
}
