package io.culprit.agent.it;

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

/** A running {@link TargetMain} in its own JVM, driven through its stdin/stdout. */
final class Target implements AutoCloseable {
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    final long pid;
    final Path java;

    private Target(Process process, Path java) throws Exception {
        this.process = process;
        this.java = java;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the target exited
            }
        }, "it-target-stdout");
        pump.setDaemon(true);
        pump.start();
        String ready = next("ready", 30);
        this.pid = Long.parseLong(ready.substring("ready ".length()));
    }

    /** Starts a target on the given java with extra JVM options (e.g. -javaagent) and class path entries. */
    static Target start(Path java, List<String> jvmOptions, List<Path> extraClassPath) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.add("-Xmx256m");
        cmd.addAll(jvmOptions);
        StringBuilder cp = new StringBuilder(Paths.get("target", "test-classes").toAbsolutePath().toString());
        for (Path p : extraClassPath) {
            cp.append(File.pathSeparator).append(p.toAbsolutePath());
        }
        cmd.add("-cp");
        cmd.add(cp.toString());
        cmd.add(TargetMain.class.getName());
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new Target(p, java);
    }

    /** Sends one stdin command and returns the first answer line starting with {@code prefix}. */
    String ask(String command, String prefix) throws Exception {
        stdin.write(command + "\n");
        stdin.flush();
        return next(prefix, 60);
    }

    private String next(String prefix, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !process.isAlive()) {
                throw new AssertionError("target exited with " + process.exitValue() + " while waiting for '" + prefix + "'");
            }
        }
        throw new AssertionError("target did not answer '" + prefix + "' within " + seconds + " s");
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The agent's log in this target, for failure messages. */
    String agentLog() {
        try {
            return new String(Files.readAllBytes(RunInfo.dir().resolve(pid + ".log")), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no agent log: " + e + ")";
        }
    }

    /** Names of live threads as jcmd Thread.print (from the target's own JDK) reports them. */
    List<String> threadNames() throws Exception {
        List<String> names = new ArrayList<>();
        for (String line : jcmd("Thread.print")) {
            if (line.startsWith("\"")) {
                names.add(line.substring(1, line.indexOf('"', 1)));
            }
        }
        if (names.isEmpty()) {
            throw new AssertionError("jcmd Thread.print listed no threads for " + pid);
        }
        return names;
    }

    /** After a full GC, the class loaders still alive in the target, one line each. */
    List<String> classLoadersAfterGc() throws Exception {
        jcmd("GC.run");
        return jcmd("VM.classloaders");
    }

    private List<String> jcmd(String command) throws Exception {
        Path jcmd = java.resolveSibling("jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), String.valueOf(pid), command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        }
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("jcmd " + pid + " " + command + " failed: " + lines);
        }
        return lines;
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
        // Failures carry the log in their message; do not leave one file per test run behind.
        Files.deleteIfExists(RunInfo.dir().resolve(pid + ".log"));
    }
}
