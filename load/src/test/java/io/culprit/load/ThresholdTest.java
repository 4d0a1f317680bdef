package io.culprit.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ThresholdTest {

    /** 1,000 requests in 10 s, 10 errors; latency 990 x 10 ms + 10 x 300 ms; service all 10 ms. */
    static LoadResult result() {
        Histogram latency = new Histogram(3_600_000_000L, 3);
        Histogram service = new Histogram(3_600_000_000L, 3);
        latency.recordValueWithCount(10_000, 990);
        latency.recordValueWithCount(300_000, 10);
        service.recordValueWithCount(10_000, 1000);
        LoadPlan plan = LoadPlan.closed(1, Duration.ofSeconds(10), List.of(RequestSpec.get("http://127.0.0.1:1/")));
        return new LoadResult(plan, 0, 10_000_000_000L, 1000, 10, 1000, 0, 0, 0, Double.NaN,
                Map.of("http", 10L), Map.of(200, 990L, 500, 10L), latency, service, List.of(), List.of());
    }

    @Test
    void eachMetricComparesWhatItNames() {
        LoadResult r = result();
        assertThat(Threshold.parse("p99<200ms").passes(r)).isTrue();
        assertThat(Threshold.parse("p99.5<200ms").passes(r)).isFalse();
        assertThat(Threshold.parse("max<=300ms").passes(r)).isFalse(); // HDR max is the bucket's top: 300.031 ms
        assertThat(Threshold.parse("max<301ms").passes(r)).isTrue();
        assertThat(Threshold.parse("service_max<11ms").passes(r)).isTrue();
        assertThat(Threshold.parse("mean<20ms").passes(r)).isTrue();
        assertThat(Threshold.parse("errors<1%").passes(r)).isFalse();
        assertThat(Threshold.parse("errors<=1%").passes(r)).isTrue();
        assertThat(Threshold.parse("errors<11").passes(r)).isTrue();
        assertThat(Threshold.parse("rps>=100").passes(r)).isTrue();
        assertThat(Threshold.parse("rps>100").passes(r)).isFalse();
        assertThat(Threshold.parse(" P99 < 0.2s ").passes(r)).isTrue();
        assertThat(Threshold.parse("errors<1%").formatActual(r)).isEqualTo("1.00%");
        assertThat(Threshold.parse("p99.5<1s").formatActual(r)).isEqualTo("300.03ms");
    }

    @Test
    void badSyntaxNamesTheExpression() {
        assertThatThrownBy(() -> Threshold.parse("p99 below 200ms")).isInstanceOf(LoadException.class)
                .hasMessageStartingWith("bad threshold 'p99 below 200ms' (expected e.g.");
        assertThatThrownBy(() -> Threshold.parse("p99<200")).hasMessageContaining("latency needs a unit");
        assertThatThrownBy(() -> Threshold.parse("rps>5%")).hasMessageContaining("rps takes a plain number");
        assertThatThrownBy(() -> Threshold.parse("p0<1s")).hasMessageContaining("percentile must be in (0, 100]");
        assertThatThrownBy(() -> Threshold.parse("errors<5ms")).hasMessageContaining("errors take a % or a count");
    }
}
