package io.culprit.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.tools.attach.VirtualMachine;
import io.culprit.agent.internal.AgentArgs;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The agent loaded into a running target through the Attach API, on each JDK. The target has
 * its own, older Jackson on its class path: it must keep seeing only that one.
 */
class AgentAttachIT {
    static Stream<Path> jdks() {
        return Jdks.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void attachesReattachesAndStaysIsolated(Path java, @TempDir Path dir) throws Exception {
        try (Target target = Target.start(java, List.of(), oldJackson())) {
            try {
                String token = AgentArgs.randomToken();
                long t0 = System.nanoTime();
                attach(target.pid, token);
                RunInfo run = RunInfo.await(target.pid, 30);
                assertThat(run.token).isEqualTo(token);
                Channel.Reply first = Channel.run(run.port, token, "jvm", true);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                System.out.println("[" + java + "] attach -> first answer: " + ms + " ms");
                assertThat(first.code).as(first.toString()).isZero();

                String isolation = target.ask("isolation", "isolation");
                assertThat(isolation)
                        .contains("app=2.17.2@jackson-databind-2.17.2.jar ")
                        .contains("agent=2.20.1@core.jar ")
                        .contains("agentLoader=culprit")
                        .endsWith("leak=no");

                // A second attach answers from the live agent: same port, both tokens valid.
                String second = AgentArgs.randomToken();
                attach(target.pid, second);
                RunInfo again = RunInfo.await(target.pid, 30);
                assertThat(again.port).isEqualTo(run.port);
                assertThat(Channel.run(run.port, second, "sysprop java.vm.name", false).code).isZero();
                assertThat(Channel.run(run.port, token, "sysprop java.vm.name", false).code).isZero();
                assertThat(target.threadNames().stream().filter("culprit-accept"::equals).count()).isEqualTo(1);

                AgentChecks.busiestIsTheSpinner(again);
                AgentChecks.blockingHolders(again);
                AgentChecks.refusesBadToken(again, target);
                AgentChecks.stopLeavesNothing(again, target);

                // After stop a new attach works again (a fresh isolated loader).
                String third = AgentArgs.randomToken();
                attach(target.pid, third);
                RunInfo fresh = RunInfo.await(target.pid, 30);
                assertThat(fresh.token).isEqualTo(third);
                assertThat(Channel.run(fresh.port, third, "thread -b", false).out.toString()).contains("it-monitor-holder");
                assertThat(Channel.run(fresh.port, third, "thread -n 2 -i 50", false).code).isZero();
                AgentChecks.jfrRuns(fresh, target);
                AgentChecks.stopLeavesNothing(fresh, target);
                AgentChecks.jfrStaysIdle(target);
                AgentChecks.operatorsRecordingIsWhole(target, dir);
                // Detached agents must not pin their isolated loaders (and so their classes).
                assertThat(target.classLoadersAfterGc()).as("class loaders after two attach/stop cycles")
                        .noneMatch(line -> line.contains("\"culprit\""));
            } catch (AssertionError | Exception e) {
                throw new AssertionError(e.getMessage() + "\n--- agent log of " + target.pid + ":\n" + target.agentLog(), e);
            }
        }
    }

    private static void attach(long pid, String token) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
        try {
            vm.loadAgent(Jdks.agentJar().toString(), "token=" + token);
        } finally {
            vm.detach();
        }
    }

    /** Jackson 2.17.2 jars, copied by the pom's it-jackson execution (the agent carries 2.20.1). */
    private static List<Path> oldJackson() throws IOException {
        List<Path> jars = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Paths.get("target", "it-jackson"), "*.jar")) {
            dir.forEach(jars::add);
        }
        assertThat(jars).hasSize(3);
        return jars;
    }
}
