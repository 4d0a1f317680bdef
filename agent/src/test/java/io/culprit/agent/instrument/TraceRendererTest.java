package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class TraceRendererTest {

    @Test
    void fixedPointMatchesFormat() {
        double[] values = {0, 0.0004, 0.12, 1.2345678, 12.999999, 50.04, 99.995001, 123456.789, 3e-7};
        for (double v : values) {
            for (int d : new int[] {0, 2, 3}) {
                String expected = String.format(Locale.ROOT, "%." + d + "f", v);
                assertThat(TraceRenderer.fixed(new StringBuilder(), v, d).toString()).as("%s, %d places", v, d).isEqualTo(expected);
            }
        }
    }
}
