package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.it.targets.SpinTarget;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;

/** The channel answers only a client that presents the per-attach token. */
class TokenIT {

    @Test
    void aConnectionWithoutTheTokenIsRefusedAndLogged() throws Exception {
        try (TargetJvm t = TargetJvm.start(System.getProperty("java.home"), SpinTarget.class)) {
            String pid = Long.toString(t.pid());
            assertThat(Cli.run("exec", pid, "jvm").code).isZero();
            Path runFile = Ports.runFile(t.pid());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(runFile))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(runFile.getParent()))).isEqualTo("rwx------");

            String answer = send(Ports.agentPort(t.pid()), "{\"token\":\"0000\",\"cmd\":\"sysprop\",\"json\":false}");
            assertThat(answer).contains("refused").contains("\"code\":3").doesNotContain("java.version");

            String noToken = send(Ports.agentPort(t.pid()), "{\"cmd\":\"sysprop\"}");
            assertThat(noToken).contains("refused").doesNotContain("java.version");

            Path log = runFile.resolveSibling(pid + ".log");
            assertThat(Files.readString(log)).containsIgnoringCase("refused");
            assertThat(Cli.run("exec", pid, "stop").code).isZero();
            assertThat(t.serves()).isTrue();
        }
    }

    private static String send(int port, String line) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder();
            String l;
            while ((l = in.readLine()) != null) sb.append(l).append('\n');
            return sb.toString().replace(" ", "");
        }
    }
}
