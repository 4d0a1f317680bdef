package io.culprit.cli.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A running lab service: a child JVM started from the lab's fat jar with the scenario's JVM flags.
 * {@code culprit lab} runs one in the foreground; demo/diagnose and tests start one, load it, and
 * {@link #stop()} it.
 */
public final class LabProcess implements AutoCloseable {

    /** Start-up on a busy 2-core machine can take tens of seconds. */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

    private final Process process;
    /** 0 until the lab reports the port it bound (see {@link #portFile}). */
    private volatile int port;
    /** Where a lab started on port 0 writes the port it bound; null when the port was given. */
    private final Path portFile;
    /** The flags the JVM was started with: what another scenario must share to be served by it. */
    private final List<String> jvmArgs;
    private volatile GroundTruth scenario;
    private volatile boolean fixed;
    private Path log;

    private LabProcess(Process process, int port, Path portFile, GroundTruth scenario, boolean fixed) {
        this.process = process;
        this.port = port;
        this.portFile = portFile;
        this.jvmArgs = scenario.jvmArgs(fixed);
        this.scenario = scenario;
        this.fixed = fixed;
    }

    /**
     * Starts the lab from $CULPRIT_HOME with its output in a fresh temp file ({@link #log()}), and
     * waits until it answers.
     */
    public static LabProcess start(String scenario, boolean fixed, String db, int port) {
        Path log;
        try {
            log = Files.createTempFile("culprit-lab-" + scenario + "-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the lab's log file: " + e.getMessage(), e);
        }
        LabProcess lab = start(scenario, fixed, db, port, log);
        lab.log = log;
        return lab;
    }

    /** Starts the lab from $CULPRIT_HOME, output to {@code log}, and waits until it answers. */
    public static LabProcess start(String scenario, boolean fixed, String db, int port, Path log) {
        LabJar jar = LabJar.locate();
        try {
            LabProcess lab = start(jar, new Options(scenario, fixed, db, port, false), ProcessBuilder.Redirect.appendTo(log.toFile()));
            lab.log = log;
            return lab;
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + " (its output: " + log + ")", e);
        }
    }

    /**
     * Starts the lab with {@code output} for its stdout/stderr, and waits until it answers. Port 0
     * lets the lab bind any free port and report it: a port picked here and passed on could be
     * taken by another socket before the lab binds it.
     */
    public static LabProcess start(LabJar jar, Options o, ProcessBuilder.Redirect output) {
        GroundTruth truth = jar.scenario(o.scenario());
        Path portFile = o.port() == 0 ? newPortFile() : null;
        List<String> cmd = command(jar.path(), truth, o);
        if (portFile != null) cmd.add("--lab.port-file=" + portFile);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(output);
        if (output == ProcessBuilder.Redirect.INHERIT) {
            pb.redirectInput(ProcessBuilder.Redirect.INHERIT);
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the lab: " + e.getMessage(), e);
        }
        LabProcess lab = new LabProcess(p, o.port(), portFile, truth, o.fixed());
        try {
            lab.awaitReady(READY_TIMEOUT);
        } finally {
            if (portFile != null) deleteQuietly(portFile);
        }
        return lab;
    }

    /** A name for the port file that does not exist yet: the lab's write is what creates it. */
    private static Path newPortFile() {
        try {
            Path f = Files.createTempFile("culprit-lab-port-", ".txt");
            Files.delete(f);
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the lab's port file: " + e.getMessage(), e);
        }
    }

    private static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            // A temp file: the OS cleans it if we cannot.
        }
    }

    /** The child's command line: this JVM's java, the scenario's flags, the jar, the lab properties. */
    static List<String> command(Path jar, GroundTruth truth, Options o) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(truth.jvmArgs(o.fixed()));
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.add("--lab.scenario=" + truth.name());
        cmd.add("--lab.fixed=" + o.fixed());
        cmd.add("--lab.db=" + o.db());
        cmd.add("--lab.redis=" + o.redis());
        cmd.add("--lab.port=" + o.port());
        return cmd;
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the lab exited with code " + process.exitValue() + " before answering on " + portText());
            }
            if (port == 0) readPortFile();
            if (port != 0 && answers()) {
                return;
            }
            try {
                process.waitFor(250, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                stop();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the lab was starting", e);
            }
        }
        stop();
        throw new IllegalStateException("the lab did not answer on " + portText() + " within " + timeout.toSeconds() + " s");
    }

    private String portText() {
        return port == 0 ? "any port (it reported none)" : "port " + port;
    }

    /** The lab writes the file whole, by a rename, once its server is bound. */
    private void readPortFile() {
        try {
            if (Files.exists(portFile)) port = Integer.parseInt(Files.readString(portFile).trim());
        } catch (IOException | NumberFormatException e) {
            // Not there yet, or being replaced: the next poll reads it.
        }
    }

    private boolean answers() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(baseUrl() + "/lab/mode").toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(2_000);
            try {
                return c.getResponseCode() == 200;
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public GroundTruth scenario() {
        return scenario;
    }

    public boolean fixed() {
        return fixed;
    }

    /**
     * Whether this process can serve {@code next}'s twin without a restart, as a redeploy would:
     * it can when that twin runs with the flags this JVM started with (gc-pool-starvation's twins
     * differ: the fix is the heap size), and no leak is involved. A leak's heap must not outlive a
     * switch nor be inherited: in the same JVM the collector was still clearing receipt-leak's
     * released archive during the fixed twin's 8 s, and heap-leak read a rising floor (one CI run
     * in four, session 32). So a leak scenario starts on a lab of its own and leaves it behind.
     */
    public boolean canServe(GroundTruth next, boolean fixedTwin) {
        return jvmArgs.equals(next.jvmArgs(fixedTwin)) && !leaks(scenario) && !leaks(next);
    }

    /** A leak scenario: its heap must neither outlive a switch nor be inherited (see {@link #canServe}). */
    public static boolean leaks(GroundTruth s) {
        return "heap-leak".equals(s.category());
    }

    /**
     * Switches the running lab to {@code next}'s faulty or fixed twin (POST /lab/mode), as a
     * redeploy would; only where {@link #canServe} says so.
     */
    public void switchTo(GroundTruth next, boolean fixedTwin) {
        if (!canServe(next, fixedTwin)) {
            throw new IllegalStateException(next.name() + (fixedTwin ? "'s fixed twin" : "") + " cannot share this lab's JVM: start a new one");
        }
        String twin = fixedTwin ? "fixed" : "faulty";
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(baseUrl() + "/lab/mode?scenario=" + next.name() + "&fixed=" + fixedTwin)
                    .toURL().openConnection();
            c.setRequestMethod("POST");
            c.setConnectTimeout(2_000);
            c.setReadTimeout(10_000);
            try {
                int code = c.getResponseCode();
                if (code != 200) throw new IllegalStateException("the lab refused to switch to " + next.name() + " (" + twin + "): HTTP " + code);
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot switch the lab to " + next.name() + " (" + twin + "): " + e.getMessage(), e);
        }
        this.scenario = next;
        this.fixed = fixedTwin;
    }

    /** The file holding the child's output, or null when it was forwarded elsewhere. */
    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the child to exit (the foreground command). */
    public int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    /** Asks the child to shut down (SIGTERM: Spring closes the pool and the server), then forces it. */
    public void stop() {
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        // log-storm writes ~15 KB a request there: gone with the lab, not left behind a demo each time.
        if (!process.isAlive()) {
            try {
                Files.deleteIfExists(appLog());
            } catch (IOException e) {
                // Another user's file, or already gone: nothing of ours to clean.
            }
        }
    }

    /** The lab's own file log (lab/src/main/resources/logback-spring.xml's default). */
    public Path appLog() {
        return Path.of(System.getProperty("java.io.tmpdir"), "culprit-lab-" + process.pid() + ".log");
    }

    @Override
    public void close() {
        stop();
    }

    /** What to start: scenario, twin, database (h2|postgres), port (0: any free one), Redis for the product cache. */
    public record Options(String scenario, boolean fixed, String db, int port, boolean redis) {
        public Options {
            if (!db.equals("h2") && !db.equals("postgres")) {
                throw new IllegalArgumentException("unknown database '" + db + "'; known: h2, postgres");
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0-65535 (0: any free port), got " + port);
            }
        }
    }
}
