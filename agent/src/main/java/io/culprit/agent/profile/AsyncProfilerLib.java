package io.culprit.agent.profile;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Collectors;
import java.util.zip.CRC32;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Drives async-profiler's native library inside this JVM.
 *
 * <p>Why not its Java API ({@code one.profiler.AsyncProfiler}, {@code System.load})? A JNI library
 * belongs to the class loader that loaded it, and the JVM refuses to load it again in another
 * loader. Every attach of culprit gets a fresh isolated loader, so the second attach after a
 * {@code stop} would fail. Instead the library is loaded the way {@code asprof} does it, as a
 * JVMTI agent: {@code JVMTI.agent_load} (here through the DiagnosticCommand MBean, no attach
 * needed). The JVM keeps one copy of the library per path; each load calls its
 * {@code Agent_OnAttach} with our command, so any number of loaders, attaches and detaches share
 * the one profiler. The library is extracted once per content (CRC) to a private cache, so every
 * culprit version that bundles the same build reuses the same path.
 */
public final class AsyncProfilerLib {
    static final String RESOURCE = "linux-x64/libasyncProfiler.so";
    /** Overrides the bundled library, e.g. a newer async-profiler build. */
    public static final String PROPERTY = "culprit.asyncProfiler";

    private final Path library;
    private final Path work;

    private AsyncProfilerLib(Path library, Path work) {
        this.library = library;
        this.work = work;
    }

    /** Finds (extracting if needed) the native library; fails with a one-line reason. */
    public static AsyncProfilerLib locate() throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase();
        String arch = System.getProperty("os.arch", "");
        Path home = Paths.get(System.getProperty("user.home"), ".culprit");
        Path work = Files.createDirectories(home.resolve("profiles"));
        String override = System.getProperty(PROPERTY);
        if (override != null) return new AsyncProfilerLib(Paths.get(override), work);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IOException("profiler: bundled async-profiler is linux-x64 only; this is " + os + "/" + arch
                    + " (set -D" + PROPERTY + "=/path/to/libasyncProfiler.so)");
        }
        byte[] so;
        try (InputStream in = AsyncProfilerLib.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IOException("profiler: " + RESOURCE + " is not bundled in the agent (tools.profiler:async-profiler missing)");
            so = in.readAllBytes();
        }
        CRC32 crc = new CRC32();
        crc.update(so);
        Path dir = Files.createDirectories(home.resolve("lib").resolve("async-profiler-" + Long.toHexString(crc.getValue())));
        Path lib = dir.resolve("libasyncProfiler.so");
        // Never rewrite a library the JVM may have mapped: same path means same bytes (CRC in the name).
        if (!Files.isRegularFile(lib) || Files.size(lib) != so.length) {
            Path tmp = Files.createTempFile(dir, "lib", ".tmp");
            Files.write(tmp, so);
            Files.move(tmp, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return new AsyncProfilerLib(lib, work);
    }

    public Path library() {
        return library;
    }

    /** Where profiles go unless the user names a file. */
    public Path workDir() {
        return work;
    }

    /**
     * Runs one async-profiler command (e.g. {@code start,event=cpu,file=x.jfr,jfr}) and returns
     * what it wrote to {@code file=} (when {@code captureOutput}) plus its log; a failed command
     * throws with async-profiler's own error line.
     */
    public String execute(String command, boolean captureOutput) throws Exception {
        if (command.contains("\"")) throw new IllegalArgumentException("profiler: quotes are not allowed in " + command);
        Path log = Files.createTempFile(work, "ap", ".log");
        Path out = captureOutput ? Files.createTempFile(work, "ap", ".out") : null;
        try {
            String options = command + (out == null ? "" : ",file=" + out) + ",log=" + log;
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            // The DCmd parser splits on spaces and '=': the whole option string goes in quotes.
            Object reply = server.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "jvmtiAgentLoad",
                    new Object[] {new String[] {library.toString(), "\"" + options + "\""}},
                    new String[] {String[].class.getName()});
            List<String> logLines = Files.readAllLines(log);
            String errors = logLines.stream().filter(l -> l.startsWith("[ERROR]")).map(l -> l.substring(7).trim())
                    .collect(Collectors.joining("; "));
            String text = String.valueOf(reply).trim();
            if (!errors.isEmpty() || !text.endsWith("return code: 0")) {
                throw new IllegalStateException("async-profiler: " + (errors.isEmpty() ? text.replace('\n', ' ') : errors));
            }
            String output = out == null ? "" : Files.readString(out);
            String warnings = logLines.stream().filter(l -> l.startsWith("[WARN]")).collect(Collectors.joining("\n"));
            return warnings.isEmpty() ? output : output + (output.isEmpty() ? "" : "\n") + warnings;
        } finally {
            Files.deleteIfExists(log);
            if (out != null) Files.deleteIfExists(out);
        }
    }
}
