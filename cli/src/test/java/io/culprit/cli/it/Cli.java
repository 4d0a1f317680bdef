package io.culprit.cli.it;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real CLI, {@code java -jar target/culprit.jar ...}, as a user would. */
public final class Cli {

    /** What one run printed and returned. */
    public static final class Result {
        public final int code;
        public final String out;
        public final String err;

        Result(int code, String out, String err) {
            this.code = code;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    private Cli() {
    }

    public static Path jar() {
        return Path.of("target", "culprit.jar").toAbsolutePath();
    }

    public static Result run(String... args) {
        return run(60, args);
    }

    public static Result run(int timeoutSeconds, String... args) {
        List<String> cmd = new ArrayList<>(List.of(javaBin(System.getProperty("java.home")), "-jar", jar().toString()));
        cmd.addAll(List.of(args));
        try {
            File out = File.createTempFile("culprit-out", ".txt");
            File err = File.createTempFile("culprit-err", ".txt");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err);
            pb.environment().put("CULPRIT_HOME", Path.of("..").toAbsolutePath().normalize().toString());
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                // Its children first (demo's lab JVM): killed forcibly, the CLI runs no shutdown hook
                // that would stop them, and an orphaned lab would load the machine for the next tests.
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new AssertionError("culprit " + String.join(" ", args) + " did not finish in " + timeoutSeconds + " s");
            }
            Result r = new Result(p.exitValue(), read(out), read(err));
            out.delete();
            err.delete();
            return r;
        } catch (Exception e) {
            throw new AssertionError("cannot run culprit: " + e, e);
        }
    }

    static String javaBin(String home) {
        return Path.of(home, "bin", "java").toString();
    }

    private static String read(File f) throws java.io.IOException {
        return new String(java.nio.file.Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
    }
}
