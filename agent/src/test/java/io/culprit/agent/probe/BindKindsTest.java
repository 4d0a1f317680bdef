package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class BindKindsTest {
    private final BindKinds binds = new BindKinds();

    @Test
    void eachParameterKeepsItsLastKindUntilTaken() {
        binds.bind(1, BindKinds.NUMBER);
        binds.bind(3, BindKinds.kindOf("48500012345"));
        binds.bind(1, BindKinds.kindOf(new BigDecimal("1.5")));
        binds.bind(4, BindKinds.kindOf(java.time.LocalDate.EPOCH));
        long kinds = binds.take();
        assertThat(BindKinds.describe(kinds)).isEqualTo("number,?,string,other");
        assertThat(binds.take()).isZero();
        assertThat(BindKinds.describe(0)).isNull();
    }

    @Test
    void indexesOutsideTheRecordedRangeAreLeftOut() {
        binds.bind(0, BindKinds.NUMBER);
        binds.bind(BindKinds.MAX_INDEX + 1, BindKinds.NUMBER);
        binds.bind("1", BindKinds.NUMBER);
        binds.bind(BindKinds.MAX_INDEX, BindKinds.STRING);
        assertThat(BindKinds.describe(binds.take())).endsWith(",string").hasSize(2 * (BindKinds.MAX_INDEX - 1) + "string".length());
    }
}
