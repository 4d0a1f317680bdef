package io.culprit.agent.instrument;

import io.culprit.agent.instrument.fixture.ShopMain;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link ShopMain} (or another fixture main) in its own JVM, driven through stdin/stdout; its stdout is kept for failure dumps. */
final class ShopTarget implements AutoCloseable {

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> log = new ArrayList<>();
    final long pid;

    ShopTarget(boolean load) throws Exception {
        this(ShopMain.class.getName(), List.of(), load ? List.of("--load") : List.of());
    }

    /** Another fixture main that speaks the same stdin/stdout protocol, with {@code jars} on its class path too. */
    ShopTarget(String main, List<Path> jars, List<String> args) throws Exception {
        StringBuilder cp = new StringBuilder(Paths.get("target", "test-classes").toAbsolutePath().toString());
        for (Path jar : jars) cp.append(File.pathSeparator).append(jar);
        List<String> cmd = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-cp", cp.toString(), main));
        cmd.addAll(args);
        process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (log) {
                        log.add(line);
                    }
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the target exited
            }
        }, "it-shop-stdout");
        pump.setDaemon(true);
        pump.start();
        pid = Long.parseLong(next("ready").substring("ready ".length()));
    }

    String ask(String command, String prefix) throws Exception {
        stdin.write(command + "\n");
        stdin.flush();
        return next(prefix);
    }

    private String next(String prefix) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !process.isAlive()) {
                throw new AssertionError("target exited while waiting for '" + prefix + "'\n" + dump());
            }
        }
        throw new AssertionError("target did not answer '" + prefix + "'\n" + dump());
    }

    /** The target's stdout and the agent's log, for assertion messages. */
    String dump() {
        StringBuilder sb = new StringBuilder("--- target stdout:\n");
        synchronized (log) {
            log.forEach(l -> sb.append(l).append('\n'));
        }
        try {
            Path agentLog = Paths.get(System.getProperty("user.home"), ".culprit", "run", pid + ".log");
            sb.append("--- agent log:\n").append(new String(Files.readAllBytes(agentLog), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            sb.append("(no agent log)");
        }
        return sb.toString();
    }

    @Override
    public void close() throws Exception {
        try {
            stdin.write("exit\n");
            stdin.flush();
        } catch (IOException ignored) {
            // already gone
        }
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }
}
