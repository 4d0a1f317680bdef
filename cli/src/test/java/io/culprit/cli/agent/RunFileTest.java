package io.culprit.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunFileTest {

    @TempDir
    Path dir;

    @Test
    void theLastErrorAfterTheAttachIsTheExceptionsMessage() throws Exception {
        Path log = dir.resolve("42.log");
        String earlier = "2026-11-24T02:00:00Z ERROR agent failed to start\njava.io.IOException: an older failure\n\tat x.y(Z.java:1)\n"
                + "2026-11-24T02:00:01Z INFO  detached\n";
        Files.writeString(log, earlier + "2026-11-24T02:37:56Z ERROR agent not started\n"
                + "java.lang.IllegalStateException: this JVM holds the bootstrap bridge of an earlier culprit\n"
                + "\tat io.culprit.agent.AgentCore.start(AgentCore.java:33)\n", StandardCharsets.UTF_8);

        assertThat(RunFile.errorSince(log, earlier.length())).hasValue("this JVM holds the bootstrap bridge of an earlier culprit");
        assertThat(RunFile.errorSince(log, Files.size(log))).as("nothing logged since").isEmpty();
    }

    @Test
    void anErrorWithoutAnExceptionIsItsOwnLine() throws Exception {
        Path log = dir.resolve("43.log");
        Files.writeString(log, "2026-11-24T02:37:56Z ERROR port in use\n2026-11-24T02:37:57Z INFO  detached\n", StandardCharsets.UTF_8);
        assertThat(RunFile.errorSince(log, 0)).hasValue("port in use");
        assertThat(RunFile.errorSince(dir.resolve("none.log"), 0)).isEmpty();
    }
}
