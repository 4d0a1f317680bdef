package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 37's second service outside the lab: a @Cacheable method called through {@code this},
 * so its 33 ms aggregate runs on every request. The statement held 64 % of request time and the
 * waits for a connection it held 13 % more; read as pool starvation with no cause before.
 */
class OutsideDominantCallTest {

    @Test
    void aStatementAndTheQueueForItsConnectionsAreTheRequestsTime() {
        Evidence ev = Fixtures.evidence("outside-cacheable-self-call");
        Finding f = new SlowCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).startsWith("select count(*) as observations");
        assertThat(f.summary()).startsWith("requests spend 64 % of their time in sql")
                .contains(", and 13 % more waiting for a pooled connection, which this statement holds most: the service is as"
                        + " fast as this dependency.");
        assertThat(f.explains()).contains("pool-starvation");
        assertThat(f.fix()).contains("CREATE INDEX ON b37b_price_point (region_code, recorded_at)");
    }
}
