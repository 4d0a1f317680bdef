package io.culprit.agent.it;

import io.culprit.agent.channel.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

/** A parsed {@code ~/.culprit/run/<pid>.json}. */
final class RunInfo {
    final int port;
    final String token;
    final String version;

    private RunInfo(int port, String token, String version) {
        this.port = port;
        this.token = token;
        this.version = version;
    }

    static Path dir() {
        return Paths.get(System.getProperty("user.home"), ".culprit", "run");
    }

    static Path file(long pid) {
        return dir().resolve(pid + ".json");
    }

    /** Waits (polling, bounded) for the run file: the agent writes it once it listens. */
    static RunInfo await(long pid, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.exists(file(pid))) {
                Map<?, ?> m = (Map<?, ?>) Json.parse(new String(Files.readAllBytes(file(pid)), StandardCharsets.UTF_8));
                return new RunInfo(((Number) m.get("port")).intValue(), (String) m.get("token"), (String) m.get("version"));
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no run file " + file(pid) + " after " + seconds + " s");
    }
}
