package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Services written outside the lab in session 33 (one Spring Boot 3.5.7 service on PostgreSQL 15
 * and Redis 7, recorded by {@code culprit diagnose} with 16 connections), each read wrongly or
 * half-read before: invoice numbers taken as max + 1 under one advisory lock (read "connection pool
 * too small", with "make the lock statement cheaper"); a recursion caught at StackOverflowError
 * (and a linear List.contains, and a 2,000-digit BigDecimal: all named, with the generic cure);
 * Redis KEYS through a pool of 8 (read "the pool is too small"); logback's prudent mode (read "the
 * output is slow"); a fair ReentrantLock (WARN, the cure for a long critical section); a JVM
 * started with -XX:TieredStopAtLevel=1 (read "serialization CPU"); a fixed twin whose closed-model
 * load of 16 connections filled 16 container threads (read "oversubscribed").
 */
class OutsideLocksAndDepthsTest {

    @Test
    void oneAdvisoryLockForEveryRequestIsTheCauseNotThePool() {
        Finding f = new DbAppLockRule().evaluate(Fixtures.evidence("outside-advisory-lock"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b5.App$Statement.run:120");
        assertThat(f.summary()).startsWith("sql \"select pg_advisory_xact_lock(?)\" waits 11.6 ms a call (P99 28.2 ms), 57 % of"
                        + " request time; called from b5.App$Statement.run:120 ← b5.App.invoice:100: every request takes the same lock")
                .contains("under it, until the commit, the same code runs sql \"select coalesce(max(no), ?) + ? from b5_invoice\" (0.7 ms a call)");
        assertThat(f.explains()).contains("pool-size", "pool-starvation");
        assertThat(f.fix()).contains("lock per key", "use a sequence");
    }

    @Test
    void aSequenceTakesNoLock() {
        Finding f = new DbAppLockRule().evaluate(Fixtures.evidence("outside-advisory-lock-fixed"));
        assertThat(f.isProblem()).isFalse();
        assertThat(f.summary()).isEqualTo("no statement took an advisory or table lock.");
    }

    @Test
    void onlyStatementsThatTakeALockAreLockCalls() {
        assertThat(DbAppLockRule.isLockCall("select pg_advisory_lock(?)")).isTrue();
        assertThat(DbAppLockRule.isLockCall("SELECT GET_LOCK('jobs', 10)")).isTrue();
        assertThat(DbAppLockRule.isLockCall("LOCK TABLE orders IN EXCLUSIVE MODE")).isTrue();
        assertThat(DbAppLockRule.isLockCall("select pg_try_advisory_lock(?)")).isFalse();
        assertThat(DbAppLockRule.isLockCall("select pg_advisory_unlock(?)")).isFalse();
        assertThat(DbAppLockRule.isLockCall("select * from locks where id = ?")).isFalse();
    }

    @Test
    void aRecursionCaughtAtStackOverflowIsNamedSo() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-stack-overflow-guard"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b5.App.sumRec");
        assertThat(f.summary()).contains("is recursing until the thread's stack runs out (StackOverflowError)");
        assertThat(f.fix()).contains("never let StackOverflowError be the depth guard", "explicit ArrayDeque");
        assertThat(f.explanation()).contains("unwound frame by frame");
    }

    @Test
    void aDeepStackWithoutTheErrorIsNotCalledAnOverflow() {
        // The same recursion, its samples without the JVM's throwing frames: deep, but no error seen.
        StringBuilder deep = new StringBuilder("java.lang.Thread.run;com.acme.Tree.walk");
        for (int i = 0; i < 400; i++) deep.append(";com.acme.Tree.walk");
        String[] stack = deep.toString().split(";");
        assertThat(HotCallee.deepRecursion(stack, stack.length - 1)).isTrue();
        assertThat(HotCallee.throwsStackOverflow(stack)).isFalse();
        String[] shallow = "java.lang.Thread.run;com.acme.Tree.walk;com.acme.Tree.walk".split(";");
        assertThat(HotCallee.deepRecursion(shallow, 2)).isFalse();
    }

    @Test
    void aListSearchedPerItemAndBigDecimalsAtThousandsOfDigitsGetTheirOwnCures() {
        Finding list = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-list-dedupe"));
        assertThat(list.summary()).contains("in its call to java.util.ArrayList.contains", "that is searching a list item by item");
        assertThat(list.fix()).contains("LinkedHashSet");
        Finding big = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-bigdecimal-precision"));
        assertThat(big.culprit()).isEqualTo("b5.App.interest");
        assertThat(big.summary()).contains("of it is arbitrary-precision arithmetic (BigDecimal, BigInteger)");
        assertThat(big.fix()).contains("MathContext.DECIMAL64", "long cents");
    }

    @Test
    void aPoolFullOfSlowKeysCallsIsExplainedByThem() {
        var ev = Fixtures.evidence("outside-redis-keys");
        Finding pool = new ObjectPoolRule().evaluate(ev);
        assertThat(pool.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(pool.summary()).endsWith("; while lent, they are busy in redis \"KEYS\" (4.6 ms a call, 50 % of request time): the"
                + " pool is full because its calls are slow, and a larger one would only queue more of them at the dependency.");
        Finding slow = new SlowCallsRule().evaluate(ev);
        assertThat(slow.explains()).contains("object-pool");
        assertThat(slow.fix()).startsWith("KEYS walks the whole keyspace");
    }

    @Test
    void aJedisPoolHeldAcrossAnotherCallIsStillThePoolsFinding() {
        // The pool is held across a partner's HTTP call: the slow call does not explain the pool's wait.
        Finding slow = new SlowCallsRule().evaluate(Fixtures.evidence("outside-jedis-pool-held"));
        assertThat(slow.explains()).doesNotContain("object-pool");
    }

    @Test
    void prudentModeLocksTheFileForEachEvent() {
        Finding f = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-logback-prudent"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("of CPU samples lock the log file for each event (logback's prudent mode)");
        assertThat(f.fix()).startsWith("Turn the appender's prudent mode off (logback: <prudent>false</prudent>");
        Finding plain = new LoggingPressureRule().evaluate(Fixtures.evidence("outside-logback-prudent-fixed"));
        assertThat(plain.summary()).doesNotContain("prudent");
        assertThat(plain.fix()).doesNotContain("prudent");
    }

    @Test
    void aFairLockSpendsTheCpuHandingItselfOver() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-fair-lock"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("b5.App.hit:202");
        assertThat(f.summary()).endsWith("; it is a fair lock, handed to the longest waiter at each release, and 46 % of CPU samples"
                + " park and wake threads to hand it over.");
        assertThat(f.fix()).startsWith("Make the lock unfair (new ReentrantLock(), the default");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-fair-lock-fixed")).isProblem()).isFalse();
    }

    @Test
    void aJvmStartedC1OnlyIsItsFlags() {
        Finding f = new InterpretedCodeRule().evaluate(Fixtures.evidence("outside-c1-only"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("the JVM's flags: -XX:TieredStopAtLevel=1");
        assertThat(f.summary()).startsWith("the JVM runs with -XX:TieredStopAtLevel=1: its methods are compiled by C1 only");
        assertThat(f.explains()).contains("serialization-cpu", "cpu-saturation");
        assertThat(f.fix()).contains("optimizedLaunch");
        assertThat(InterpretedCodeRule.c1OnlyFlag("-Xmx1g -XX:TieredStopAtLevel=4")).isNull();
        assertThat(InterpretedCodeRule.c1OnlyFlag("-XX:TieredStopAtLevel=1 -XX:TieredStopAtLevel=4")).isNull();
        assertThat(new InterpretedCodeRule().evaluate(Fixtures.evidence("outside-c1-only-fixed")).isProblem()).isFalse();
    }

    @Test
    void aClosedLoadAsWideAsThePoolFillsItWithoutOversubscribing() {
        Finding f = new ThreadOversubscriptionRule().evaluate(Fixtures.evidence("outside-commit-per-row-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).endsWith("; the closed-model load keeps 16 requests in flight, which fills the pool by itself.");
    }
}
