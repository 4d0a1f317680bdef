package io.culprit.agent.channel;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.internal.AgentArgs;
import org.junit.jupiter.api.Test;

class TokenCheckTest {
    @Test
    void acceptsOnlyTheExactToken() {
        String token = AgentArgs.randomToken();
        TokenCheck check = new TokenCheck(token);
        assertThat(check.accepts(token)).isTrue();
        assertThat(check.accepts(null)).isFalse();
        assertThat(check.accepts("")).isFalse();
        assertThat(check.accepts(token.substring(1))).isFalse();
        assertThat(check.accepts(token + "0")).isFalse();
        char last = token.charAt(63);
        assertThat(check.accepts(token.substring(0, 63) + (last == 'a' ? 'b' : 'a'))).isFalse();
    }

    @Test
    void comparesExactBytesCaseIncluded() {
        TokenCheck check = new TokenCheck("ab".repeat(32));
        assertThat(check.accepts("AB".repeat(32))).isFalse();
    }

    @Test
    void aReattachAddsATokenWithoutRevokingTheFirst() {
        String first = AgentArgs.randomToken();
        String second = AgentArgs.randomToken();
        TokenCheck check = new TokenCheck(first);
        check.add(second);
        assertThat(check.accepts(first)).isTrue();
        assertThat(check.accepts(second)).isTrue();
    }

    @Test
    void keepsAtMostEightTokens() {
        String first = AgentArgs.randomToken();
        TokenCheck check = new TokenCheck(first);
        for (int i = 0; i < 8; i++) {
            check.add(AgentArgs.randomToken());
        }
        assertThat(check.accepts(first)).as("oldest dropped").isFalse();
    }

    @Test
    void randomTokensAre256BitHexAndDiffer() {
        String a = AgentArgs.randomToken();
        assertThat(a).matches("[0-9a-f]{64}");
        assertThat(AgentArgs.randomToken()).isNotEqualTo(a);
    }
}
