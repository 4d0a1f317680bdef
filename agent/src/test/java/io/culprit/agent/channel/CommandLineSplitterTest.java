package io.culprit.agent.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.command.CommandException;
import org.junit.jupiter.api.Test;

class CommandLineSplitterTest {
    @Test
    void keepsAQuotedExpressionAsOneWord() throws Exception {
        assertThat(CommandLineSplitter.split("watch a.B c '{params, returnObj}' -x 2"))
                .containsExactly("watch", "a.B", "c", "{params, returnObj}", "-x", "2");
    }

    @Test
    void collapsesWhitespaceAndHandlesEmptyLines() throws Exception {
        assertThat(CommandLineSplitter.split("  thread\t -n   3  ")).containsExactly("thread", "-n", "3");
        assertThat(CommandLineSplitter.split("   ")).isEmpty();
    }

    @Test
    void doubleQuotesAllowEscapedQuotesAndJoinAdjacentText() throws Exception {
        assertThat(CommandLineSplitter.split("watch x \"params[0] == \\\"a b\\\"\""))
                .containsExactly("watch", "x", "params[0] == \"a b\"");
        assertThat(CommandLineSplitter.split("a'b c'd")).containsExactly("ab cd");
        assertThat(CommandLineSplitter.split("say ''")).containsExactly("say", "");
    }

    @Test
    void singleQuotesAreLiteral() throws Exception {
        assertThat(CommandLineSplitter.split("x 'a\\b \"c\"'")).containsExactly("x", "a\\b \"c\"");
    }

    @Test
    void backslashOutsideQuotesEscapesTheNextCharacter() throws Exception {
        assertThat(CommandLineSplitter.split("a\\ b c")).containsExactly("a b", "c");
    }

    @Test
    void unterminatedQuoteIsAOneLineError() {
        assertThatThrownBy(() -> CommandLineSplitter.split("watch a '{params"))
                .isInstanceOf(CommandException.class).hasMessage("unterminated single quote");
        assertThatThrownBy(() -> CommandLineSplitter.split("watch \"a"))
                .isInstanceOf(CommandException.class).hasMessage("unterminated double quote");
    }
}
