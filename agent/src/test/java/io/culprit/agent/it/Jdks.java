package io.culprit.agent.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/** The target JVMs the agent must work on: the running JDK (17) and the Temurin JDK 25. */
final class Jdks {
    static final Path TEMURIN_25 = Paths.get("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

    private Jdks() {
    }

    static List<Path> all() {
        List<Path> javas = new ArrayList<>();
        javas.add(Paths.get(System.getProperty("java.home"), "bin", "java"));
        // Required where it exists (this machine, CI); elsewhere the run covers the current JDK only.
        if (Files.isExecutable(TEMURIN_25)) {
            javas.add(TEMURIN_25);
        }
        return javas;
    }

    static Path agentJar() {
        Path jar = Paths.get("target", "culprit-agent.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError(jar + " missing: run the package phase first (mvn verify)");
        }
        return jar;
    }
}
