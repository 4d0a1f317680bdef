package io.culprit.load.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.load.TestServerHandle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real entry point in its own JVM: exit codes as the shell sees them, one-line errors, and a
 * terminated run that still reports. Output of a failing run is in the assertion message.
 */
class LoadMainIT {

    @TempDir
    Path dir;

    record Proc(int code, String out, String err) {
    }

    private Process start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LoadMain.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectOutput(dir.resolve("out.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()).start();
    }

    private Proc finish(Process p) throws Exception {
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("culprit load did not end").isTrue();
        return new Proc(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    @Test
    void exitCodesAsTheShellSeesThem() throws Exception {
        try (TestServerHandle server = TestServerHandle.start(5)) {
            Proc violated = finish(start(server.url("/"), "-r", "100/s", "-d", "1s", "--window", "1s",
                    "--threshold", "p50<1ms"));
            assertThat(violated.code()).as(violated.out() + violated.err()).isEqualTo(99);
            assertThat(violated.out()).contains("FAIL p50<1ms");

            Proc ok = finish(start(server.url("/"), "-c", "2", "-d", "1s", "--threshold", "errors<1%"));
            assertThat(ok.code()).as(ok.out() + ok.err()).isEqualTo(0);

            Proc bad = finish(start("http//nowhere", "-d", "1s"));
            assertThat(bad.code()).isEqualTo(2);
            assertThat(bad.err()).startsWith("culprit load: malformed URL: http//nowhere").hasLineCount(1);
        }
    }

    @Test
    void aTerminatedRunStillPrintsItsSummaryAndResult() throws Exception {
        try (TestServerHandle server = TestServerHandle.start(5)) {
            Path json = dir.resolve("r.json");
            Process p = start(server.url("/"), "-r", "100/s", "-d", "60s", "--window", "1s", "--out", json.toString());
            // Wait for real progress rather than a fixed delay: 150 requests at the server prove the
            // run is under way (JVM started, warm connections, past the first window).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && server.requests() < 150) {
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            }
            p.destroy(); // SIGTERM, the same shutdown path as Ctrl-C
            Proc done = finish(p);
            assertThat(done.out()).as(done.err()).contains("requests ......").contains("result written to");
            assertThat(Files.readString(json)).contains("\"format\" : \"culprit-load\"");
            // Requests on the wire at the signal were drained, not cut off as timeouts.
            assertThat(done.out()).contains("timeout=0");
        }
    }
}
