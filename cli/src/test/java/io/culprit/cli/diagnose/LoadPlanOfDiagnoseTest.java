package io.culprit.cli.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.load.LoadPlan;
import io.culprit.load.RequestSpec;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The load a live diagnosis drives: an open model's requests in flight are capped. */
class LoadPlanOfDiagnoseTest {

    private static LiveDiagnosis.Plan plan(double rate, int connections) {
        LiveDiagnosis.Plan p = new LiveDiagnosis.Plan();
        p.url = URI.create("http://127.0.0.1:8080/api");
        p.rate = rate;
        p.connections = connections;
        p.duration = Duration.ofSeconds(20);
        return p;
    }

    @Test
    void aRateIsAnOpenModelCappedAtTheDefaultInFlight() {
        LiveDiagnosis.Plan p = plan(100, 0);
        LoadPlan load = LiveDiagnosis.loadPlan(p);
        assertThat(load.model()).isEqualTo(LoadPlan.Model.OPEN);
        assertThat(load.connections()).isEqualTo(LiveDiagnosis.OPEN_CAP).isLessThan(LoadPlan.DEFAULT_OPEN_CONNECTIONS);
        assertThat(LiveDiagnosis.warmupOf(load, p, p.warmup).connections()).isEqualTo(LiveDiagnosis.OPEN_CAP);
    }

    @Test
    void connectionsWithARateSetTheCap() {
        LiveDiagnosis.Plan p = plan(100, 5);
        LoadPlan load = LiveDiagnosis.loadPlan(p);
        assertThat(load.model()).isEqualTo(LoadPlan.Model.OPEN);
        assertThat(load.connections()).isEqualTo(5);
        assertThat(LiveDiagnosis.warmupOf(load, p, p.warmup).connections()).isEqualTo(5);
    }

    @Test
    void aWarmUpStepLastsWhatItIsGiven() {
        LiveDiagnosis.Plan p = plan(0, 12);
        LoadPlan load = LiveDiagnosis.loadPlan(p);
        assertThat(LiveDiagnosis.warmupOf(load, p, LiveDiagnosis.SETTLE_STEP).duration()).isEqualTo(LiveDiagnosis.SETTLE_STEP);
    }

    @Test
    void theJitsShareIsItsCompileTimeOverTheWallTime() {
        // 1.2 s of compilation in a 2 s step: 0.6 of a core, still recompiling.
        assertThat(LiveDiagnosis.jitCores(10_000, 11_200, Duration.ofSeconds(2))).isEqualTo(0.6);
        assertThat(LiveDiagnosis.jitCores(10_000, 11_200, Duration.ofSeconds(2))).isGreaterThan(LiveDiagnosis.JIT_SETTLED_CORES);
        assertThat(LiveDiagnosis.jitCores(Double.NaN, 11_200, Duration.ofSeconds(2))).isNaN();
    }

    @Test
    void aMixOfRequestsIsDrivenInPlaceOfTheUrl() {
        LiveDiagnosis.Plan p = plan(0, 8);
        p.requests = List.of(
                new RequestSpec("GET", URI.create("http://127.0.0.1:8080/f1?event=7"), Map.of(), null, 3),
                new RequestSpec("POST", URI.create("http://127.0.0.1:8080/f4"), Map.of(), new byte[] {'{', '}'}, 1));
        LoadPlan load = LiveDiagnosis.loadPlan(p);
        assertThat(load.requests()).isEqualTo(p.requests);
        assertThat(LiveDiagnosis.target(p)).isEqualTo("GET http://127.0.0.1:8080/f1?event=7 and 1 more requests");
    }

    @Test
    void connectionsAloneAreAClosedModel() {
        LoadPlan load = LiveDiagnosis.loadPlan(plan(0, 12));
        assertThat(load.model()).isEqualTo(LoadPlan.Model.CLOSED);
        assertThat(load.connections()).isEqualTo(12);
    }
}
