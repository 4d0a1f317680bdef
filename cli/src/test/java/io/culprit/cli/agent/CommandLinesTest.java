package io.culprit.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CommandLinesTest {

    @Test
    void splitsOnSemicolonsOutsideQuotes() {
        assertThat(CommandLines.split("dashboard; thread -b ;; jvm")).containsExactly("dashboard", "thread -b", "jvm");
        assertThat(CommandLines.split("watch a.B m '{params; returnObj}' -x 2; stop"))
                .containsExactly("watch a.B m '{params; returnObj}' -x 2", "stop");
        assertThat(CommandLines.split("  ")).isEmpty();
    }

    @Test
    void refusesAnUnterminatedQuote() {
        assertThatThrownBy(() -> CommandLines.split("watch a.B m '{params"))
                .hasMessageContaining("unterminated quote");
    }
}
