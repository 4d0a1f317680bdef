package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class MicrosTest {

    /**
     * An auto-resizing histogram grows by catching an ArrayIndexOutOfBoundsException inside
     * recordValue: in a target JVM each growth was an exception JFR recorded as the service's.
     * Sized once, the range never changes, so no value makes it grow.
     */
    @Test
    void theRangeIsFixedAndCoversAnHour() {
        Histogram h = Micros.histogram();
        assertThat(h.isAutoResize()).isFalse();
        long before = h.getEstimatedFootprintInBytes();
        for (long us = 1; us <= Micros.HIGHEST; us *= 10) Micros.record(h, us);
        Micros.record(h, Micros.HIGHEST);
        assertThat(h.getEstimatedFootprintInBytes()).isEqualTo(before).isLessThan(32 * 1024);
        assertThat(h.getTotalCount()).isEqualTo(11);
        assertThat(h.getMaxValue()).isGreaterThanOrEqualTo((long) (Micros.HIGHEST * 0.99));
    }

    @Test
    void valuesOutsideTheRangeAreClampedNotThrown() {
        Histogram h = Micros.histogram();
        Micros.record(h, Long.MAX_VALUE / 2);
        Micros.record(h, 0);
        Micros.record(h, -5);
        assertThat(h.getTotalCount()).isEqualTo(3);
        assertThat(h.getMinValue()).isEqualTo(1);
        assertThat(h.getMaxValue()).isGreaterThanOrEqualTo((long) (Micros.HIGHEST * 0.99));
    }

    /** Two significant digits: a percentile is within 1 % of the value recorded. */
    @Test
    void percentilesAreWithinOnePercent() {
        Histogram h = Micros.histogram();
        Micros.record(h, 123_456);
        assertThat((double) h.getValueAtPercentile(50)).isCloseTo(123_456, org.assertj.core.data.Percentage.withPercentage(1));
    }
}
