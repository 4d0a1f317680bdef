package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.it.targets.SpinTarget;
import org.junit.jupiter.api.Test;

/** Every bad input is one line on stderr naming the problem, and a non-zero exit. */
class BadInputIT {

    private static void assertOneLineError(Cli.Result r, int code, String contains) {
        assertThat(r.code).as(r.toString()).isEqualTo(code);
        assertThat(r.err.strip()).as(r.toString()).startsWith("culprit: ").contains(contains).doesNotContain("\n");
    }

    @Test
    void unknownPid() {
        assertOneLineError(Cli.run("exec", "999999999", "jvm"), 2, "no process with pid 999999999");
    }

    @Test
    void aPidThatIsNotAJvm() {
        // pid 1 is not a JVM on any machine this runs on
        assertOneLineError(Cli.run("exec", "1", "jvm"), 2, "is not a Java VM");
    }

    @Test
    void aJvmThatRefusesAttach() {
        try (TargetJvm t = TargetJvm.start(System.getProperty("java.home"), SpinTarget.class, "-XX:+DisableAttachMechanism")) {
            assertOneLineError(Cli.run("exec", Long.toString(t.pid()), "jvm"), 3, "refuses attach");
            assertThat(t.isAlive()).isTrue();
        }
    }

    @Test
    void aPidThatIsNotANumber() {
        assertOneLineError(Cli.run("exec", "abc", "jvm"), 2, "abc");
    }

    @Test
    void unknownSubcommand() {
        assertOneLineError(Cli.run("frobnicate"), 2, "frobnicate");
    }

    @Test
    void anUnknownDemoScenarioStartsNothing() {
        Cli.Result r = Cli.run("demo", "nosuch");
        assertThat(r.code).as(r.toString()).isEqualTo(2);
        assertThat(r.err.strip()).as(r.toString()).startsWith("culprit demo: unknown lab scenario 'nosuch'; known: healthy")
                .doesNotContain("\n");
    }

    @Test
    void aNegativeDemoWarmupStartsNothing() {
        Cli.Result r = Cli.run("demo", "healthy", "--warmup", "-1");
        assertThat(r.code).as(r.toString()).isEqualTo(2);
        assertThat(r.err.strip()).as(r.toString()).isEqualTo("culprit demo: --warmup must not be negative, not -1");
    }
}
