package io.culprit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CulpritTest {

    @Test
    void unknownSubcommandIsAOneLineErrorWithNonZeroExit() {
        CommandLine cl = Culprit.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("frobnicate");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("culprit: ").contains("frobnicate").doesNotContain("\n");
    }

    @Test
    void helpListsEverySubcommand() {
        CommandLine cl = Culprit.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        assertThat(cl.execute("--help")).isZero();
        assertThat(out.toString()).contains("ps", "attach", "exec", "load", "lab", "diagnose", "analyze", "demo");
    }

    /** Every subcommand answers {@code --help} with its usage and exit 0, as a user of any CLI expects. */
    @Test
    void everySubcommandShowsItsUsageOnHelp() {
        for (String name : Culprit.commandLine().getSubcommands().keySet()) {
            if (name.equals("help")) continue;
            CommandLine cl = Culprit.commandLine();
            StringWriter out = new StringWriter(), err = new StringWriter();
            cl.setOut(new PrintWriter(out));
            cl.setErr(new PrintWriter(err));
            assertThat(cl.execute(name, "--help")).as("%s --help: %s", name, err).isZero();
            assertThat(out.toString()).as(name).startsWith("Usage: culprit " + name);
        }
    }

    /** {@code --body @file} as its own word is the body's file, not an argument file picocli would expand. */
    @Test
    void aBodyFileGivenAsItsOwnWordReachesTheCommand(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path body = java.nio.file.Files.writeString(dir.resolve("claim.json"), "{\"policyNumber\": \"POL-1\", \"amount\": 1}");
        CommandLine cl = Culprit.commandLine();
        CommandLine.ParseResult parsed = cl.parseArgs("load", "--body", "@" + body, "http://127.0.0.1:9/");
        assertThat(parsed.subcommand().matchedOptionValue("--body", "")).isEqualTo("@" + body);
    }
}
