package io.culprit.cli.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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

    /** The agent log's size now: what {@link #errorSince} reads past. */
    public static long logSize(long pid) {
        try {
            return Files.size(log(pid));
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * The reason of the last error the agent logged after {@code offset}: the message of the
     * exception printed under its ERROR line, or that line's own text. Empty when none.
     */
    public static Optional<String> errorSince(long pid, long offset) {
        return errorSince(log(pid), offset);
    }

    static Optional<String> errorSince(Path log, long offset) {
        try {
            byte[] all = Files.readAllBytes(log);
            if (offset > all.length) offset = 0;  // a new log (another JVM with this pid)
            String[] lines = new String(all, (int) offset, all.length - (int) offset, StandardCharsets.UTF_8).split("\n");
            for (int i = lines.length - 1; i >= 0; i--) {
                int at = lines[i].indexOf(" ERROR ");
                if (at < 0) continue;
                String next = i + 1 < lines.length ? lines[i + 1] : "";
                int colon = next.indexOf(": ");
                boolean exception = colon > 0 && next.substring(0, colon).matches("[\\w.$]+");
                return Optional.of(exception ? next.substring(colon + 2) : lines[i].substring(at + 7).trim());
            }
        } catch (IOException | RuntimeException e) {
            // No log: nothing more to say than where it would be.
        }
        return Optional.empty();
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
