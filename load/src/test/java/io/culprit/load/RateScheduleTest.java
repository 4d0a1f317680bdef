package io.culprit.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateScheduleTest {

    @Test
    void constantRateSpacesRequestsEvenly() {
        RateSchedule s = RateSchedule.constant(400, Duration.ofSeconds(2));
        assertThat(s.totalRequests()).isEqualTo(800);
        assertThat(s.offsetNanos(0)).isZero();
        assertThat(s.offsetNanos(1)).isEqualTo(2_500_000L);
        assertThat(s.offsetNanos(799)).isEqualTo(1_997_500_000L);
        assertThat(s.offsetNanos(800)).isEqualTo(Long.MAX_VALUE);
        assertThat(s.countAt(1_000_000_000L)).isCloseTo(400, within(1e-9));
    }

    @Test
    void rampIntegratesTheRateAndInvertsExactly() {
        // 0 -> 100/s over 10 s, then 100 -> 50/s over 10 s: 500 + 750 requests.
        RateSchedule s = new RateSchedule(0, List.of(
                new RateSchedule.Stage(100, Duration.ofSeconds(10)),
                new RateSchedule.Stage(50, Duration.ofSeconds(10))));
        assertThat(s.countAt(10_000_000_000L)).isCloseTo(500, within(1e-6));
        assertThat(s.countAt(20_000_000_000L)).isCloseTo(1250, within(1e-6));
        assertThat(s.rateAt(5_000_000_000L)).isCloseTo(50, within(1e-9));
        assertThat(s.rateAt(15_000_000_000L)).isCloseTo(75, within(1e-9));
        long previous = -1;
        for (long k = 0; k < s.totalRequests(); k++) {
            long t = s.offsetNanos(k);
            assertThat(t).isGreaterThan(previous);
            // countAt is the inverse of offsetNanos to well under one request.
            assertThat(s.countAt(t)).isCloseTo(k, within(1e-3));
            previous = t;
        }
        // Request 50 on a 0 -> 100/s ramp: 10 t^2 / 2 = 50 -> t = sqrt(10) s.
        assertThat(s.offsetNanos(50) / 1e9).isCloseTo(Math.sqrt(10), within(1e-6));
    }

    @Test
    void warmupRunsAtTheStartingRateThenTheMeasuredScheduleBegins() {
        RateSchedule s = new RateSchedule(100, List.of(new RateSchedule.Stage(200, Duration.ofSeconds(1))))
                .withWarmup(Duration.ofSeconds(2));
        assertThat(s.totalNanos()).isEqualTo(3_000_000_000L);
        assertThat(s.countAt(2_000_000_000L)).isCloseTo(200, within(1e-6));
        assertThat(s.countAt(3_000_000_000L)).isCloseTo(350, within(1e-6));
    }

    @Test
    void schedulesThatSendNothingAreRejected() {
        assertThatThrownBy(() -> RateSchedule.constant(0, Duration.ofSeconds(1)))
                .isInstanceOf(LoadException.class).hasMessage("rate must be > 0, got 0.0");
        assertThatThrownBy(() -> RateSchedule.constant(0.5, Duration.ofSeconds(1)))
                .hasMessageContaining("sends no request");
    }
}
