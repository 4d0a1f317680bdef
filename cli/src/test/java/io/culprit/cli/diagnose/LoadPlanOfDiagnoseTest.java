package io.culprit.cli.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.load.LoadPlan;
import java.net.URI;
import java.time.Duration;
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
        assertThat(LiveDiagnosis.warmupOf(load, p).connections()).isEqualTo(LiveDiagnosis.OPEN_CAP);
    }

    @Test
    void connectionsWithARateSetTheCap() {
        LiveDiagnosis.Plan p = plan(100, 5);
        LoadPlan load = LiveDiagnosis.loadPlan(p);
        assertThat(load.model()).isEqualTo(LoadPlan.Model.OPEN);
        assertThat(load.connections()).isEqualTo(5);
        assertThat(LiveDiagnosis.warmupOf(load, p).connections()).isEqualTo(5);
    }

    @Test
    void connectionsAloneAreAClosedModel() {
        LoadPlan load = LiveDiagnosis.loadPlan(plan(0, 12));
        assertThat(load.model()).isEqualTo(LoadPlan.Model.CLOSED);
        assertThat(load.connections()).isEqualTo(12);
    }
}
