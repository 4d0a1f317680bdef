package io.culprit.agent.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The agent's own log, {@code ~/.culprit/run/<pid>.log}. Deliberately not java.util.logging or
 * anything the application configures: the target's stdout, stderr and logging stay untouched.
 */
public final class AgentLog {
    private final Path file;
    private OutputStream out;

    public AgentLog(Path file) {
        this.file = file;
        try {
            if (!Files.exists(file)) {
                Files.createFile(file, RunFile.OWNER_ONLY_FILE);
            }
            out = Files.newOutputStream(file, StandardOpenOption.APPEND);
        } catch (IOException | UnsupportedOperationException e) {
            out = null; // no log is better than a failed attach
        }
    }

    public Path file() {
        return file;
    }

    public void info(String message) {
        write(now() + " INFO  " + message + "\n");
    }

    public void error(String message, Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        write(now() + " ERROR " + message + "\n" + sw);
    }

    /** UTC time without java.time.format, which would load ~50 classes into the target. */
    private static String now() {
        long ms = System.currentTimeMillis();
        return LocalDateTime.ofEpochSecond(Math.floorDiv(ms, 1000), (int) Math.floorMod(ms, 1000) * 1_000_000, ZoneOffset.UTC) + "Z";
    }

    private synchronized void write(String line) {
        if (out == null) {
            return;
        }
        try {
            out.write(line.getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            out = null;
        }
    }

    public synchronized void close() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException ignored) {
                // closing a log on detach: nothing left to tell
            }
            out = null;
        }
    }
}
