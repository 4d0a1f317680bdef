package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ten faults of a Spring Boot service written outside the lab (session 19), recorded by
 * {@code culprit diagnose}. The CPU ones already had the right method; the verdict now says what
 * in it costs (secure random ids, sorting inside a map's per-key lock, password hashing, colliding
 * hash keys, compression, RSA signing) and gives that cure, not the generic one. The hand-offs to
 * {@code CompletableFuture} named the join and gave Hystrix's advice; they now name the common
 * pool when it was full, or the socket their tasks waited on. A pool waiting on itself and a
 * wait/notify pool were invisible: their waits are no park and no contended monitor enter.
 */
class OutsideComputationTest {
    @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

    @Test
    void uuidsPerItemNameSecureRandom() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-secure-random"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.BlindApp$Api.uuid");
        assertThat(f.summary()).contains("100 % of it in its call to java.util.UUID.randomUUID",
                "; that is SecureRandom (UUID.randomUUID and secure random numbers)");
        assertThat(f.fix()).startsWith("UUID.randomUUID() and new SecureRandom() draw from one secure generator");
    }

    @Test
    void aPercentileSortedInsideConcurrentHashMapComputeNamesTheSortAndTheBinLock() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-sorted-window"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.BlindApp$Api.stats");
        assertThat(f.summary()).contains("99 % of it in its call to java.util.Arrays.sort", "; that is sorting",
                "it runs inside ConcurrentHashMap.compute or merge, holding the lock of the key's bin");
        assertThat(f.fix()).contains("HdrHistogram for percentiles", "Do the work outside the map's compute");
        // The monitor waits on the map's node are this method's doing.
        assertThat(f.explains()).contains("lock-contention");
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-sorted-window")).summary())
                .contains("java.util.concurrent.ConcurrentHashMap$Node");
    }

    @Test
    void bcryptPerRequestIsPasswordHashing() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-bcrypt"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("in its call to org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder.matches",
                "; that is password hashing or key derivation (slow on purpose)");
        assertThat(f.fix()).startsWith("Password hashing and key derivation are slow on purpose");
    }

    @Test
    void collidingKeysCompressionAndSigningAreNamedWithTheirOwnCures() {
        Finding hash = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-hash-collisions"));
        assertThat(hash.culprit()).isEqualTo("blind.BlindApp$Api.skus");
        assertThat(hash.summary()).contains("in its call to java.util.HashMap.merge", "is hash collisions (HashMap's tree bins)");
        assertThat(hash.fix()).startsWith("The map's keys collide").doesNotContain("replace quadratic lookups");

        Finding gzip = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-gzip"));
        assertThat(gzip.culprit()).isEqualTo("blind.BlindApp$Api.catalogue");
        assertThat(gzip.summary()).contains("is compression (java.util.zip)");
        assertThat(gzip.fix()).startsWith("Compressing on every request");

        Finding rsa = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-rsa-sign"));
        assertThat(rsa.culprit()).isEqualTo("blind.BlindApp$Api.token");
        assertThat(rsa.summary()).contains("in its call to java.security.Signature.sign", "is cryptography");
        assertThat(rsa.fix()).startsWith("Public-key operations cost milliseconds each");
    }

    @Test
    void aFullCommonPoolIsNamedWithItsThreadsAndQueue() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-common-pool"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.BlindApp$Api.async:83");
        assertThat(f.summary()).contains("CompletableFuture$Signaller", "waiting for work handed to other threads",
                "; ForkJoinPool.commonPool had all 3 threads busy in 94 % of 16 windows, 4.7 tasks queued on average");
        assertThat(f.fix()).startsWith("The hand-off runs on ForkJoinPool.commonPool").doesNotContain("Hystrix");
    }

    @Test
    void aHandOffWhoseTasksWaitOnTheirDependencysSocketNamesThatSocket() {
        // Two CPUs: the common pool has one thread, so supplyAsync started a thread per task and no
        // pool was ever full. The tasks' HttpURLConnection got its head in 15 ms (the calls table)
        // and read the body for ~43 ms more (JFR's socket reads): the requests wait for that.
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-thread-per-task"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).doesNotContain("commonPool").endsWith("; the tasks handed off waited on the socket to"
                + " localhost:18099 at blind.BlindApp$Api.quote (2,015 waits, 85.9 s in all, JFR's I/O events over 5 ms).");
        assertThat(f.fix()).startsWith("The requests wait for tasks that wait in turn on the socket to localhost:18099");
        assertThat(f.culprit()).isEqualTo("blind.BlindApp$Api.quote");
    }

    @Test
    void aPoolWaitingOnItselfIsTheCauseOfTheRequestsHandOff() {
        Finding f = new StuckThreadsRule().evaluate(Fixtures.evidence("outside-pool-self-wait"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.BlindApp$Api.lambda$report$2:133");
        assertThat(f.summary()).startsWith("4 of the 4 threads of pool-#-thread-# waited for the whole run (16.5 s) in FutureTask.awaitDone"
                + " inside their own tasks").contains("(a thread-starvation deadlock)");
        assertThat(f.explains()).contains("lock-contention", "request-errors");
        // The idle and system threads that never moved (Tomcat's, the Finalizer, timers) are no finding.
        Finding idle = new StuckThreadsRule().evaluate(io.culprit.diagnosis.CaseBuilder.in(dir, 10, 2).table("stuck-threads",
                io.culprit.diagnosis.CaseBuilder.row("threads", 10, "groupSize", 10, "group", "http-nio-#-exec-#", "state", "WAITING",
                        "lockClass", "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", "stack",
                        List.of("jdk.internal.misc.Unsafe.park", "java.util.concurrent.LinkedBlockingQueue.take:435",
                                "org.apache.tomcat.util.threads.TaskQueue.take:171",
                                "java.util.concurrent.ThreadPoolExecutor.getTask:1062",
                                "java.util.concurrent.ThreadPoolExecutor.runWorker:1122")),
                io.culprit.diagnosis.CaseBuilder.row("threads", 1, "groupSize", 1, "group", "Finalizer", "state", "WAITING",
                        "lockClass", "java.lang.ref.ReferenceQueue$Lock", "stack",
                        List.of("java.lang.Object.wait", "java.lang.ref.ReferenceQueue.remove:155"))).evidence());
        assertThat(idle.severity()).isEqualTo(Severity.OK);
        assertThat(idle.summary()).startsWith("no pool worker waited on other tasks");
    }

    @Test
    void aWaitNotifyPoolIsALockWaitNamedWithWhatItsResourceIsHeldAcross() {
        // Object.wait was in no table: no contended monitor enter, no park.
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-wait-notify-pool"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.BlindApp$Api.quote:158");
        assertThat(f.summary()).contains("on blind.BlindApp$LegacyPool (wait, 510 events), held at blind.BlindApp$Api.quote:158",
                "waiters at blind.BlindApp$LegacyPool.take:167");
        assertThat(f.fix()).startsWith("Size the pool for its demand");
        assertThat(f.confirm()).contains("stack blind.BlindApp\\$LegacyPool take -n 40");
    }
}
