package io.culprit.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The lab's fat jar in a child JVM, started with a scenario's JVM flags from its ground-truth file,
 * for *IT tests. Its output goes to target/it-*.log, whose tail is printed if the test fails.
 */
final class LabJvm implements AutoCloseable {

    static final Path JAR = Path.of("target/culprit-lab.jar");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Path log;
    final int port;

    private LabJvm(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    static LabJvm start(String scenario, boolean fixed) throws Exception {
        LabJvm lab = launch(scenario, fixed);
        lab.awaitReady();
        return lab;
    }

    /** Starts the JVM without waiting for it, so a test can start both twins at once; then {@link #awaitReady()}. */
    static LabJvm launch(String scenario, boolean fixed) throws Exception {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR + " missing: *IT tests run after packaging (mvn verify)");
        }
        JsonNode truth = ScenarioFiles.read(scenario);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        truth.path(fixed ? "fixedJvmArgs" : "jvmArgs").forEach(a -> cmd.add(a.asText()));
        cmd.addAll(List.of("-jar", JAR.toString(), "--lab.scenario=" + scenario, "--lab.fixed=" + fixed,
                "--lab.port=" + port, "--lab.log-file=target/it-" + scenario + "-app.log"));
        Path log = Path.of("target/it-" + scenario + (fixed ? "-fixed" : "") + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new LabJvm(p, log, port);
    }

    void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("lab exited with " + process.exitValue() + "\n" + tail());
            }
            try {
                LabLoad.once(LabLoad.get(url("/lab/mode")));
                return;
            } catch (AssertionError notYet) {
                process.waitFor(250, TimeUnit.MILLISECONDS);
            }
        }
        close();
        throw new IllegalStateException("lab did not answer within 180 s\n" + tail());
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    JsonNode stats() throws IOException {
        return JSON.readTree(LabLoad.body(LabLoad.get(url("/lab/stats"))));
    }

    void mode(String scenario, boolean fixed) {
        LabLoad.body(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                url("/lab/mode?scenario=" + scenario + "&fixed=" + fixed))).POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build());
    }

    /** The last lines of the lab's output, for failure messages. */
    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }
}
