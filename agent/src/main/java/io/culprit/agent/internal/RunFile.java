package io.culprit.agent.internal;

import io.culprit.agent.channel.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code ~/.culprit/run/<pid>.json}: how the CLI finds a live agent (docs/ARCHITECTURE.md).
 * The directory is 0700 and the file 0600 because the token in it is the only key to the
 * channel; it is written to a temp file and renamed so a reader never sees half a file.
 */
public final class RunFile {
    static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");

    private final Path dir;
    private final long pid;

    public RunFile(Path dir, long pid) {
        this.dir = dir;
        this.pid = pid;
    }

    /**
     * Where the run file and log go: the agent argument {@code rundir=}, else the target's
     * {@code CULPRIT_RUN_DIR} (the same override the CLI honours), else {@code ~/.culprit/run}.
     * A chosen directory is created owner-only if missing, and refused if others may write to
     * it: they could replace the run file and steer the CLI to their own port.
     */
    public static Path resolveDir(String rundirArg) throws IOException {
        String chosen = rundirArg != null ? rundirArg : System.getenv("CULPRIT_RUN_DIR");
        if (chosen == null || chosen.isEmpty()) {
            return defaultDir();
        }
        Path dir = Paths.get(chosen).toAbsolutePath();
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
        } catch (FileAlreadyExistsException e) {
            throw new IOException("culprit agent: run dir " + dir + " is not a directory");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
        if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException("culprit agent: run dir " + dir + " is writable by other users");
        }
        return dir;
    }

    /** {@code ~/.culprit/run}, created owner-only if missing. */
    public static Path defaultDir() throws IOException {
        Path culprit = Paths.get(System.getProperty("user.home"), ".culprit");
        Path run = culprit.resolve("run");
        for (Path d : new Path[] {culprit, run}) {
            try {
                Files.createDirectory(d, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
            } catch (FileAlreadyExistsException e) {
                Files.setPosixFilePermissions(d, OWNER_ONLY_DIR);
            }
        }
        return run;
    }

    public Path path() {
        return dir.resolve(pid + ".json");
    }

    public Path logPath() {
        return dir.resolve(pid + ".log");
    }

    public void write(int port, String token, String version) throws IOException {
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("pid", pid);
        content.put("port", port);
        content.put("token", token);
        content.put("version", version);
        // Not createTempFile: its SecureRandom costs ~20 ms on attach; the name is unique enough.
        Path tmp = dir.resolve(pid + "." + System.nanoTime() + ".tmp");
        try {
            Files.createFile(tmp, OWNER_ONLY_FILE);
            Files.write(tmp, (Json.write(content) + "\n").getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, path(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Removes what dead JVMs left behind: run files at once (a killed JVM never ran its exit
     * hook, and its pid may be reused), logs after a week (kept that long for post-mortems).
     */
    public void pruneStale() {
        long weekAgo = System.currentTimeMillis() - 7L * 24 * 3600 * 1000;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.{json,log}")) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                long owner;
                try {
                    owner = Long.parseLong(name.substring(0, name.indexOf('.')));
                } catch (NumberFormatException e) {
                    continue; // not ours
                }
                if (owner == pid || ProcessHandle.of(owner).isPresent()) {
                    continue;
                }
                if (name.endsWith(".json") || Files.getLastModifiedTime(f).toMillis() < weekAgo) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            // housekeeping only
        }
    }

    /** Deletes the file only if it still names our port: a newer agent may have replaced it. */
    public void deleteIfOurs(int port) {
        try {
            Object parsed = Json.parse(new String(Files.readAllBytes(path()), StandardCharsets.UTF_8));
            if (parsed instanceof Map && Long.valueOf(port).equals(((Map<?, ?>) parsed).get("port"))) {
                Files.deleteIfExists(path());
            }
        } catch (IOException | IllegalArgumentException e) {
            // missing or unreadable: nothing of ours to delete
        }
    }
}
