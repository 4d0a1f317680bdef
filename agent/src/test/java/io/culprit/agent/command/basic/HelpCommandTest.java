package io.culprit.agent.command.basic;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.command.FakeContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class HelpCommandTest {

    /** "classloading" is twelve letters: a fixed twelve-column name field ran it into its summary. */
    @Test
    void everyNameStandsApartFromItsSummary() throws Exception {
        FakeContext ctx = new FakeContext(false);
        new HelpCommand().run(List.of(), ctx);
        List<String> lines = ctx.out.toString().lines().skip(1).toList();
        assertThat(lines).isNotEmpty().anySatisfy(l -> assertThat(l).startsWith("  classloading  "));
        int column = lines.get(0).indexOf(' ', 2);
        while (lines.get(0).charAt(column) == ' ') column++;
        for (String l : lines) {
            String name = l.substring(2, l.indexOf(' ', 2));
            assertThat(l).as(name).matches("  [a-z]+ {2,}\\S.*");
            assertThat(Character.isWhitespace(l.charAt(column - 1)) && !Character.isWhitespace(l.charAt(column)))
                    .as("summaries of '%s' start in one column", name).isTrue();
        }
    }
}
