package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 43's blind Helidon SE service (WebServer on virtual threads, JDBC on a pool of 5,
 * Jedis, Helidon's WebClient to a partner): what the rules say on its faults and their fixes.
 */
class OutsideHelidonTest {

    @Test
    void aCacheKeyWithoutEqualsIsNamedInsteadOfTheBound() {
        Finding f = new CacheMissesRule().evaluate(Fixtures.evidence("outside-helidon-identity-key"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("Its keys, com.acme.shipping.pricing.LaneKey, keep Object's equals and hashCode:"
                + " a key made for a lookup never equals the one stored, so every lookup misses whatever the bound.");
        assertThat(f.fix()).startsWith("Give LaneKey equals and hashCode over the fields that identify a value").doesNotContain("Raise the bound");
        assertThat(new CacheMissesRule().evaluate(Fixtures.evidence("outside-helidon-identity-key-fixed")).isProblem()).isFalse();
    }

    @Test
    void aTransactionAcrossTheWebClientsCallHoldsThePool() {
        Finding f = new HeldConnectionRule().evaluate(Fixtures.evidence("outside-helidon-tx-across-pickup"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).startsWith("http \"GET http://127.0.0.1:8452/v1/pickup-windows\" ran 89.8 s in 20.1 s while its thread"
                + " held a pooled connection (20.8 ms a call)").contains("4.5 of the 5.2 connections busy on average (86 %) were held across it");
        assertThat(f.culprit()).startsWith("com.acme.shipping.carrier.CarrierClient.requestPickupWindow");
    }

    @Test
    void helidonRequestsCarryTheQueriesPerRequest() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-helidon-parcels-per-shipment"));
        assertThat(f.isProblem()).isTrue();
        assertThat(f.summary()).contains("runs 40 times per request (506,560 calls, 0.2 ms each), 27 % of request time");
    }

    @Test
    void keysOverTheKeyspaceIsTheSlowCall() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-helidon-redis-keys"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("worst: redis \"KEYS\" P99 750 ms (threshold 10 ms), 451 calls");
        assertThat(f.fix()).startsWith("KEYS walks the whole keyspace in one step");
    }

    @Test
    void jsonBuiltForDroppedDebugMessagesIsNamedAsSuch() {
        Finding f = new SerializationCpuRule().evaluate(Fixtures.evidence("outside-helidon-unused-debug-json"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("com.acme.shipping.manifest.ManifestValidator's logger dropped 1,500 FINE messages a request"
                + " for their level: the text is built for log messages that are never written");
        assertThat(f.fix()).startsWith("Build the message only when its level is on").contains("logger.isLoggable(Level.FINE)");
        assertThat(new SerializationCpuRule().evaluate(Fixtures.evidence("outside-helidon-unused-debug-json-fixed")).isProblem()).isFalse();
    }
}
