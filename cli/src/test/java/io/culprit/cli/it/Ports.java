package io.culprit.cli.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;

/** Reads the agent's run file as the CLI does, for tests that talk to the port directly. */
final class Ports {
    private Ports() {
    }

    static Path runFile(long pid) {
        return Path.of(System.getProperty("user.home"), ".culprit", "run", pid + ".json");
    }

    static int agentPort(long pid) throws Exception {
        return new ObjectMapper().readTree(runFile(pid).toFile()).path("port").asInt();
    }
}
