package io.culprit.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AgentArgsTest {
    @Test
    void readsTokenAndOtherPairs() {
        String token = "0123456789abcdef".repeat(4);
        AgentArgs a = AgentArgs.parse("token=" + token + ", unsafe=true");
        assertThat(a.token()).isEqualTo(token);
        assertThat(a.get("unsafe")).isEqualTo("true");
    }

    @Test
    void emptyOrNullMeansNoToken() {
        assertThat(AgentArgs.parse(null).token()).isNull();
        assertThat(AgentArgs.parse("").token()).isNull();
    }

    @Test
    void rejectsShortOrNonHexTokensAndBarewords() {
        assertThatThrownBy(() -> AgentArgs.parse("token=abc")).hasMessageContaining("32 to 128 hex");
        assertThatThrownBy(() -> AgentArgs.parse("token=" + "g".repeat(64))).hasMessageContaining("hex");
        assertThatThrownBy(() -> AgentArgs.parse("token=" + "\u0661".repeat(64))).hasMessageContaining("hex");
        assertThatThrownBy(() -> AgentArgs.parse("verbose")).hasMessage("culprit agent: bad argument 'verbose' (expected key=value)");
    }
}
