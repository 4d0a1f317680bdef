package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 41's blind reactive service (WebFlux on Reactor Netty, R2DBC PostgreSQL through
 * r2dbc-pool, reactive Redis, WebClient), which the probes could not see before: its queries,
 * commands and requests are all asynchronous. What the rules say on each fault, in numbers.
 */
class OutsideReactiveTest {

    @Test
    void aFunctionOnTheFilteredColumnIsNamedWithTheExpressionIndex() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-reactive-function-filter"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.fix()).contains("CREATE INDEX ON p41_product (lower(sku))");
        // R2DBC's execute returns before the query runs: a trace of it shows nothing, the calls table does.
        assertThat(f.confirm()).startsWith("culprit exec 25538 \"calls\"");
    }

    @Test
    void aQueryPerRowInsideTheOuterQuerysReadDeadlocksThePool() {
        Finding f = new NestedAcquireRule().evaluate(Fixtures.evidence("outside-reactive-pool-deadlock"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("10 connections lent and 16 acquires waiting with only 11 requests in flight (in 18 of 18 windows)")
                .contains("(32 of 32 requests failed)");
        assertThat(f.fix()).contains("collectList", "ANY(:ids)");
    }

    @Test
    void aRemoteMonoSubscribedPerLineIsCountedPerLoadRequest() {
        // The remote stand-in is an endpoint of the same service: its 15,680 requests are the load's requests' calls.
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-reactive-remote-per-line"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).isEqualTo("http \"GET http://127.0.0.1:8103/ext/fx/rates\" runs 20 times per request (15,680 calls,"
                + " 21.5 ms each), 100 % of request time.");
        assertThat(f.fix()).contains("must be cached (.cache())");
    }

    @Test
    void aMapperPerRowIsChargedItsColdCaches() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-reactive-mapper-per-row"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("600 new com.fasterxml.jackson.databind.ObjectMapper per request")
                .contains("of CPU samples in Jackson's serializer and deserializer factories under com.example.catalog.service.BrowseService");
        assertThat(f.explains()).contains("serialization-cpu");
    }
}
