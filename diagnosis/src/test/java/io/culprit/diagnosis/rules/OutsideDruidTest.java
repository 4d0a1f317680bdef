package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A Spring Boot service written outside the lab (session 28) on PostgreSQL through Alibaba's Druid
 * pool, whose @Transactional quote asks a remote pricing service (40 ms) through Spring's
 * RestClient between its statements. Before, Druid had no pool series, and thread-churn (CRITICAL)
 * was the root cause, blaming "a new java.net.http.HttpClient per call": the service built one
 * client, and the thread per call was the JDK client's sendAsync completing each response through
 * the JDK's default async executor, which on 2 CPUs starts a thread per task.
 */
class OutsideDruidTest {

    @Test
    void aTransactionAroundARemoteCallHoldsDruidsConnections() {
        Diagnosis.Result r = Diagnosis.run(CaseFile.open(Fixtures.dir("outside-druid-held-connection")));
        Finding held = r.top().orElseThrow();
        assertThat(held.id()).isEqualTo("connection-held");
        assertThat(held.summary()).startsWith("http \"GET http://127.0.0.1:18619/price\" ran 81.1 s in 20.4 s while its thread held a"
                + " pooled connection (45.9 ms a call); called from blind.App$Orders.quote:68");
        Finding size = r.finding("pool-size").orElseThrow();
        assertThat(size.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(size.confirm()).contains("monitor com.alibaba.druid.pool.DruidDataSource getConnectionDirect -c 5");
    }

    @Test
    void theJdkClientsThreadPerResponseIsNamedAsSuchAndCostsLittle() {
        Finding f = new ThreadChurnRule().evaluate(Fixtures.evidence("outside-druid-held-connection"));
        assertThat(f.severity()).as("1.5 % of CPU samples in Thread.start: waste, not the fault").isEqualTo(Severity.WARN);
        assertThat(f.summary()).contains("CompletableFuture's async steps without an executor",
                "here the JDK HttpClient's sendAsync, which completes every response through that executor")
                .doesNotContain("a new java.net.http.HttpClient per call");
        assertThat(f.fix()).startsWith("Raise -Djava.util.concurrent.ForkJoinPool.common.parallelism to 2 or more");
        assertThat(ThreadChurnRule.Starter.of(java.util.List.of("java.util.concurrent.CompletableFuture$ThreadPerTaskExecutor.execute:444",
                "jdk.internal.net.http.HttpClientImpl$DelegatingExecutor.execute:158"))).isEqualTo(ThreadChurnRule.Starter.PER_TASK);
    }

    @Test
    void askingThePriceBeforeTheTransactionHoldsNoConnectionAcrossIt() {
        Diagnosis.Result r = Diagnosis.run(CaseFile.open(Fixtures.dir("outside-druid-held-connection-fixed")));
        assertThat(r.finding("connection-held").orElseThrow().severity()).isEqualTo(Severity.OK);
        assertThat(r.top().orElseThrow().id()).isEqualTo("thread-churn");
    }
}
