package io.culprit.cli.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code ~/.culprit/run/<pid>.json}: where a live agent says which loopback port it listens on
 * and which token it accepts. Owner-only (0700 directory, 0600 file), written by the agent.
 */
public final class RunFile {
    public final long pid;
    public final int port;
    public final String token;
    public final String version;

    private RunFile(long pid, int port, String token, String version) {
        this.pid = pid;
        this.port = port;
        this.token = token;
        this.version = version;
    }

    public static Path dir() {
        String override = System.getenv("CULPRIT_RUN_DIR");
        return override != null ? Path.of(override) : Path.of(System.getProperty("user.home"), ".culprit", "run");
    }

    public static Path path(long pid) {
        return dir().resolve(pid + ".json");
    }

    public static Path log(long pid) {
        return dir().resolve(pid + ".log");
    }

    /** The run file of {@code pid}, if one exists and parses. */
    public static Optional<RunFile> read(long pid) {
        Path p = path(pid);
        if (!Files.isRegularFile(p)) return Optional.empty();
        try {
            JsonNode n = new ObjectMapper().readTree(p.toFile());
            return Optional.of(new RunFile(n.path("pid").asLong(pid), n.path("port").asInt(), n.path("token").asText(), n.path("version").asText("")));
        } catch (IOException e) {
            // A half-written or foreign file is treated as absent; the agent rewrites it atomically.
            return Optional.empty();
        }
    }
}
