package io.culprit.cli.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A real target JVM for *IT tests: runs a main class from the test classes on a chosen JDK,
 * waits until it prints READY, keeps its output so a failing test can dump it, and is killed
 * on close.
 */
public final class TargetJvm implements AutoCloseable {
    /** The JDKs every IT runs against: the default one and the Temurin JDK when installed. */
    public static List<String> javaHomes() {
        List<String> homes = new ArrayList<>();
        homes.add(System.getProperty("java.home"));
        try (var s = Files.list(Path.of("/usr/lib/jvm"))) {
            s.filter(p -> p.getFileName().toString().startsWith("temurin") && Files.isExecutable(p.resolve("bin/java")))
                    .sorted().forEach(p -> homes.add(p.toString()));
        } catch (IOException e) {
            // No /usr/lib/jvm: the default JDK only.
        }
        return homes;
    }

    private final Process process;
    private final List<String> output = Collections.synchronizedList(new ArrayList<>());

    private TargetJvm(Process process) {
        this.process = process;
    }

    public static TargetJvm start(String javaHome, Class<?> main, String... jvmArgs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Cli.javaBin(javaHome));
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            TargetJvm t = new TargetJvm(p);
            CountDownLatch ready = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        t.output.add(line);
                        if (line.equals("READY")) ready.countDown();
                    }
                } catch (IOException e) {
                    // The target was killed.
                }
            }, "target-output");
            reader.setDaemon(true);
            reader.start();
            if (!ready.await(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("target " + main.getSimpleName() + " did not start:\n" + String.join("\n", t.output));
            }
            return t;
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("cannot start target: " + e, e);
        }
    }

    public long pid() {
        return process.pid();
    }

    /** The loopback port of the target's /ping endpoint (printed as {@code PORT n}). */
    public int port() {
        synchronized (output) {
            return output.stream().filter(l -> l.startsWith("PORT ")).map(l -> Integer.parseInt(l.substring(5))).findFirst()
                    .orElseThrow(() -> new AssertionError("target printed no PORT line:\n" + log()));
        }
    }

    /** True when the target still answers GET /ping: it kept serving through whatever the test did. */
    public boolean serves() {
        try {
            java.net.HttpURLConnection c = (java.net.HttpURLConnection) new java.net.URL("http://127.0.0.1:" + port() + "/ping").openConnection();
            c.setConnectTimeout(2000);
            c.setReadTimeout(5000);
            return c.getResponseCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Everything the target printed so far, for failure messages. */
    public String log() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
