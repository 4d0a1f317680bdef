package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A Spring MVC service written outside the lab (session 23), recorded by {@code culprit diagnose}:
 * a cache refreshed inside ConcurrentHashMap.compute, an HTTP call under the bin's lock, read as
 * lock contention on {@code ConcurrentHashMap$Node} with the generic "take the lock off the
 * per-request path".
 */
class OutsideMapComputeTest {

    @Test
    void aContendedMapBinIsNamedWithTheCallItsFunctionLikelyMakes() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-map-compute-lock"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("blind.Api.cfg:81");
        assertThat(f.summary()).contains("on java.util.concurrent.ConcurrentHashMap$Node (monitor",
                "; it is the lock of a key's bin, held while ConcurrentHashMap.compute runs its function;"
                        + " Api calls http \"GET http://127.0.0.1:18098/rates\" (28 calls, 48.5 ms each)");
        assertThat(f.explanation()).startsWith("ConcurrentHashMap's compute, computeIfAbsent, computeIfPresent and merge run"
                + " the caller's function while holding the lock of the key's bin");
        assertThat(f.fix()).startsWith("Keep slow work out of the map's lock").contains("CompletableFuture per key",
                "refreshAfterWrite");
    }
}
