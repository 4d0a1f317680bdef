package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Services written outside the lab in session 30 (Spring Boot 3.5.7, recorded by {@code culprit
 * diagnose} with 16 connections): an audit log forced to disk per request inside a synchronized
 * method, deposits retried on serialization failures under SERIALIZABLE on PostgreSQL, a 1 MB
 * Redis value read per request, and Tomcat closing every connection after its response. Before,
 * the first got the generic cure for a lock, the second and the last "no root cause found", the
 * third the cure for a slow query.
 */
class OutsideConflictsAndFlushesTest {

    @Test
    void aLockHeldAcrossAnFsyncNamesTheFlushAndGroupCommit() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-fsync-under-lock"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$AuditLog.append:47");
        assertThat(f.summary()).contains("held at blind.App$AuditLog.append:47")
                .endsWith("; inside it the holder spends 95 % of its 301 CPU samples in sun.nio.ch.FileChannelImpl.force,"
                        + " forcing writes to disk (fsync).");
        assertThat(f.fix()).startsWith("The lock's holder spends most of the critical section in FileChannelImpl.force,"
                + " so every request queues for that call one at a time.").contains("group commit");
    }

    @Test
    void theFlushOnATimerLeavesNeitherTheLockNorTheFlushes() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-fsync-under-lock-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
    }

    /** The flushes that pass JFR's 1 ms threshold are a wait of their own kind, with the same cure. */
    @Test
    void flushesOverAMillisecondAreNamedAsSuchInRequestWaits() {
        Finding f = new RequestWaitsRule().evaluate(Fixtures.evidence("outside-fsync-under-lock"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("request threads waited 0.1 ms per request forcing writes to disk (fsync of"
                + " /tmp/blind/audit.log) at blind.App$AuditLog.append");
    }

    @Test
    void serializationFailuresRetriedByTheServiceAreTheRootCause() {
        Finding f = new TransactionConflictsRule().evaluate(Fixtures.evidence("outside-serializable-retries"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Transfers.lambda$deposit$1:76");
        assertThat(f.summary()).isEqualTo("7,346 transaction attempts aborted by serialization failures, 0.3 per request"
                + " (PSQLException: \"ERROR: could not serialize access due to concurrent update\"); the statement that fails"
                + " is \"update accounts set balance = ? where id = ?\" (7,709 of its 31,335 executions); the service"
                + " retries them: no request failed.");
        assertThat(f.explanation()).contains("The service runs it again");
        assertThat(f.fix()).startsWith("Make the change one atomic statement").contains("SELECT … FOR UPDATE", "jittered back-off");
        assertThat(f.explains()).contains("caught-exceptions", "request-errors");
    }

    /** Deadlocks are few but each costs the deadlock timeout: they lead db-row-lock, which they explain. */
    @Test
    void deadlocksFromOppositeLockOrdersAreTheRootCause() {
        Finding f = new TransactionConflictsRule().evaluate(Fixtures.evidence("outside-deadlock-order"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Transfers.lambda$move$0:85");
        assertThat(f.summary()).startsWith("38 transaction attempts aborted by deadlocks, 0.5 per request").endsWith("; 41 requests failed.");
        assertThat(f.explanation()).contains("deadlock_timeout").contains("The request fails");
        assertThat(f.fix()).startsWith("Take the rows' locks in one order in every transaction");
        assertThat(f.explains()).contains("db-row-lock");
    }

    /** Hibernate's version check, retried by the service: the JPA cure, an atomic update or a pessimistic lock. */
    @Test
    void optimisticLockFailuresRetriedAreNamedWithTheJpaCure() {
        Finding f = new TransactionConflictsRule().evaluate(Fixtures.evidence("outside-optimistic-lock-retries"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.Stock$Reservations.reserve:62");
        assertThat(f.summary()).startsWith("29,538 transaction attempts aborted by optimistic-lock failures (a row's version"
                + " changed under the transaction), 2.4 per request (OptimisticLockException: \"Row was updated or deleted by"
                + " another transaction").contains("the service retries them: only 2 requests failed")
                .endsWith("the version check that fails is \"update blind_products set stock=?,version=? where id=? an...\", on blind.Stock$Product#4.");
        assertThat(f.fix()).startsWith("Make the change one atomic UPDATE (with JPA a @Modifying @Query")
                .contains("@Lock(LockModeType.PESSIMISTIC_WRITE)");
        assertThat(new TransactionConflictsRule().evaluate(Fixtures.evidence("outside-optimistic-lock-retries-fixed")).severity())
                .isEqualTo(Severity.OK);
    }

    @Test
    void anAtomicUpdateAbortsNothing() {
        Finding f = new TransactionConflictsRule().evaluate(Fixtures.evidence("outside-serializable-retries-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("no transaction aborted");
    }

    @Test
    void theDatabasesAndLibrariesWordsForAConflictAreRecognised() {
        assertThat(TransactionConflictsRule.Kind.of("com.mysql.cj.jdbc.exceptions.MySQLTransactionRollbackException",
                "Deadlock found when trying to get lock; try restarting transaction")).isEqualTo(TransactionConflictsRule.Kind.DEADLOCK);
        assertThat(TransactionConflictsRule.Kind.of("org.postgresql.util.PSQLException", "ERROR: deadlock detected\n  Detail: …"))
                .isEqualTo(TransactionConflictsRule.Kind.DEADLOCK);
        assertThat(TransactionConflictsRule.Kind.of("java.sql.SQLException", "ORA-08177: can't serialize access for this transaction"))
                .isEqualTo(TransactionConflictsRule.Kind.SERIALIZATION);
        assertThat(TransactionConflictsRule.Kind.of("org.springframework.orm.ObjectOptimisticLockingFailureException", null))
                .isEqualTo(TransactionConflictsRule.Kind.OPTIMISTIC);
        assertThat(TransactionConflictsRule.Kind.of("org.mariadb.jdbc.export.SQLTransientException", "Lock wait timeout exceeded"))
                .isEqualTo(TransactionConflictsRule.Kind.LOCK_TIMEOUT);
        assertThat(TransactionConflictsRule.Kind.of("java.lang.IllegalStateException", "could not find the row")).isNull();
        assertThat(TransactionConflictsRule.Kind.of("org.postgresql.util.PSQLException", "ERROR: duplicate key value")).isNull();
    }

    @Test
    void aLargeRedisValueIsNamedFromTheAllocationOfDecodingIt() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-redis-big-value"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).as("a Redis command names no place: its caller does").isEqualTo("blind.App$Api.profile:119");
        assertThat(f.summary()).contains("redis \"GET\"").endsWith("; each reply is large: 2.0 MB allocated per call decoding it"
                + " (100 % of all allocation, the most at ByteArrayCodec.getBytes).");
        assertThat(f.fix()).startsWith("Keep values small").contains("HGET or HMGET");
    }

    /** The lab's slow queries allocate little per call: their fix stays the query's. */
    @Test
    void aSlowQueryWithSmallRepliesKeepsItsOwnFix() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-unindexed-scan"));
        assertThat(f.summary()).doesNotContain("each reply is large");
        assertThat(f.fix()).doesNotStartWith("Fetch only what the request uses");
    }

    /** Tomcat with max-keep-alive-requests=1: every response closed its connection. */
    @Test
    void aServerThatClosesEveryConnectionIsNamed() {
        Finding f = new KeepAliveRule().evaluate(Fixtures.evidence("outside-keep-alive-off"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).isEqualTo("the server closed the connection after 99,011 of 99,011 successful responses (100 %) though"
                + " the client asked to keep it alive (HTTP/1.1): every request paid for a new connection.");
        assertThat(f.fix()).contains("server.tomcat.max-keep-alive-requests");
    }

    @Test
    void keptAliveConnectionsAndOlderCaseFilesRaiseNothing() {
        assertThat(new KeepAliveRule().evaluate(Fixtures.evidence("outside-keep-alive-off-fixed")).severity()).isEqualTo(Severity.OK);
        assertThat(new KeepAliveRule().evaluate(Fixtures.evidence("healthy")).verdict().name()).isEqualTo("NOT_ASSESSED");
    }

    /** A Lettuce RedisClient per request: its Netty event loops and timer started and stopped each time. */
    @Test
    void aRedisClientBuiltPerRequestIsNamedWithItsNettyThreadsAndTheSharedClientCure() {
        Finding f = new ThreadChurnRule().evaluate(Fixtures.evidence("outside-redis-client-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App$Api.flag:210");
        assertThat(f.summary()).contains("lettuce-eventExecutorLoop", "a client built per call that brings its own Netty event loops");
        assertThat(f.fix()).startsWith("Build the client once and share it: a Lettuce RedisClient");
        assertThat(new ThreadChurnRule().evaluate(Fixtures.evidence("outside-redis-client-per-request-fixed")).severity()).isEqualTo(Severity.OK);
    }
}
