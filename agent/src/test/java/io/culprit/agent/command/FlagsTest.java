package io.culprit.agent.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlagsTest {
    private static final List<String> VALUED = List.of("-n", "-i", "--state");
    private static final List<String> SWITCHES = List.of("-b");

    @Test
    void parsesValuesSwitchesAndPositionals() throws Exception {
        Flags f = Flags.parse("thread", List.of("-n", "3", "-b", "42", "--state=BLOCKED"), VALUED, SWITCHES);
        assertThat(f.longValue("-n", 1, 1, 10)).isEqualTo(3);
        assertThat(f.longValue("-i", 200, 10, 1000)).isEqualTo(200);
        assertThat(f.has("-b")).isTrue();
        assertThat(f.value("--state")).isEqualTo("BLOCKED");
        assertThat(f.positional()).containsExactly("42");
    }

    @Test
    void negativeNumbersArePositional() throws Exception {
        assertThat(Flags.parse("x", List.of("-5"), VALUED, SWITCHES).positional()).containsExactly("-5");
    }

    @Test
    void mistakesNameTheCommandAndTheWord() {
        assertThatThrownBy(() -> Flags.parse("thread", List.of("-z"), VALUED, SWITCHES))
                .hasMessage("thread: unknown option -z (see 'help thread')");
        assertThatThrownBy(() -> Flags.parse("thread", List.of("-n"), VALUED, SWITCHES))
                .hasMessage("thread: -n needs a value");
        assertThatThrownBy(() -> Flags.parse("thread", List.of("-n", "x"), VALUED, SWITCHES).longValue("-n", 1, 1, 10))
                .hasMessage("thread: -n expects a number, got 'x'");
        assertThatThrownBy(() -> Flags.parse("thread", List.of("-n", "0"), VALUED, SWITCHES).longValue("-n", 1, 1, 10))
                .hasMessage("thread: -n must be between 1 and 10, got 0");
        assertThatThrownBy(() -> Flags.parse("jvm", List.of("extra"), VALUED, SWITCHES).atMostPositional(0))
                .hasMessage("jvm: unexpected argument 'extra' (see 'help jvm')");
        assertThatThrownBy(() -> Flags.parse("thread", List.of("-b=1"), VALUED, SWITCHES))
                .isInstanceOf(CommandException.class);
    }
}
