package io.culprit.agent.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher class answers every attach in a JVM once loaded: it must start the core of the jar
 * the CLI attached now (named in {@code jar=}), not of the jar it was itself loaded from.
 */
class AttachedJarTest {
    @TempDir
    Path dir;

    @Test
    void theNamedJarWinsOverTheLaunchersOwnCodeSource() throws Exception {
        Path jar = Files.createFile(dir.resolve("a, b=c.jar"));  // commas and '=' survive the encoding
        String args = "token=" + "ab".repeat(32) + ",jar=" + URLEncoder.encode(jar.toString(), StandardCharsets.UTF_8) + ",unsafe=true";
        assertThat(AgentLauncher.attachedJar(args)).isEqualTo(jar);
    }

    @Test
    void withoutANamedJarOrWithAMissingOneItIsTheLaunchersOwn() throws Exception {
        Path own = Paths.get(AgentLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(AgentLauncher.attachedJar("token=" + "ab".repeat(32))).isEqualTo(own);
        assertThat(AgentLauncher.attachedJar("jar=" + URLEncoder.encode(dir.resolve("gone.jar").toString(), StandardCharsets.UTF_8)))
                .isEqualTo(own);
        assertThat(AgentLauncher.attachedJar("")).isEqualTo(own);
    }
}
