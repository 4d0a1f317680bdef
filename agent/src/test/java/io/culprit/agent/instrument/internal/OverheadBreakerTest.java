package io.culprit.agent.instrument.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OverheadBreakerTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void tripsAboveTheShareOfProcessCpuOnlyWhenTheCostIsMaterial() {
        OverheadBreaker b = new OverheadBreaker(() -> 0, () -> 0, () -> 0, 1_000, 10);
        assertThat(b.overBudget(300e6, SECOND, SECOND)).isEqualTo(0.3, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(b.overBudget(90e6, SECOND, SECOND)).isEqualTo(-1);        // 9 % of the process: within
        assertThat(b.overBudget(40e6, 50_000_000, SECOND)).isEqualTo(-1);    // 80 % of an idle process, 4 % of a core
        assertThat(b.overBudget(300e6, -1, SECOND)).isEqualTo(-1);           // process CPU unknown
        assertThat(new OverheadBreaker(() -> 0, () -> 0, () -> 0, 1_000, 100).overBudget(900e6, SECOND, SECOND))
                .isEqualTo(-1);                                                // 100 %: off
    }
}
