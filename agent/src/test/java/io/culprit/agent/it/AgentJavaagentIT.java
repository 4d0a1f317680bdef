package io.culprit.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The agent started with {@code -javaagent:} (no token: it makes its own), on each JDK. */
class AgentJavaagentIT {
    static Stream<Path> jdks() {
        return Jdks.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void answersAndDetachesCleanly(Path java) throws Exception {
        try (Target target = Target.start(java, List.of("-javaagent:" + Jdks.agentJar()), List.of())) {
            try {
                RunInfo run = RunInfo.await(target.pid, 30);
                assertThat(run.token).matches("[0-9a-f]{64}");
                AgentChecks.busiestIsTheSpinner(run);
                AgentChecks.blockingHolders(run);
                AgentChecks.gcCountsRise(run, target);
                AgentChecks.refusesBadToken(run, target);
                AgentChecks.badInput(run);
                assertThat(target.ask("ping", "pong")).startsWith("pong");
                AgentChecks.stopLeavesNothing(run, target);
            } catch (AssertionError | Exception e) {
                throw new AssertionError(e.getMessage() + "\n--- agent log of " + target.pid + ":\n" + target.agentLog(), e);
            }
        }
    }
}
