package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.it.targets.SpinTarget;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** After {@code stop} the target is as we found it: no culprit thread, no port, no run file. */
class StopIT {

    static List<String> javaHomes() {
        return TargetJvm.javaHomes();
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void stopLeavesNoThreadNoPortAndTheTargetServing(String javaHome) throws Exception {
        try (TargetJvm t = TargetJvm.start(javaHome, SpinTarget.class)) {
            String pid = Long.toString(t.pid());
            assertThat(Cli.run("exec", pid, "jvm").code).isZero();
            int port = Ports.agentPort(t.pid());
            assertThat(threadDump(javaHome, t.pid())).contains("\"culprit-");

            Cli.Result stop = Cli.run("exec", pid, "stop");
            assertThat(stop.code).as(stop.toString()).isZero();

            String dump = "";
            for (int i = 0; i < 50; i++) { // threads end asynchronously after the answer is sent
                dump = threadDump(javaHome, t.pid());
                if (!dump.contains("\"culprit-")) break;
                Thread.sleep(100);
            }
            assertThat(dump).as("threads after stop").doesNotContain("\"culprit-");
            assertThat(listening(port)).as("agent port after stop").isFalse();
            assertThat(Files.exists(Ports.runFile(t.pid()))).isFalse();
            assertThat(t.serves()).isTrue();

            // A second attach after a detach works and detaches again.
            Cli.Result again = Cli.run("exec", pid, "jvm; stop");
            assertThat(again.code).as(again.toString()).isZero();
            assertThat(t.serves()).isTrue();
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static String threadDump(String javaHome, long pid) throws Exception {
        Process p = new ProcessBuilder(Path.of(javaHome, "bin", "jcmd").toString(), Long.toString(pid), "Thread.print")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }
}
