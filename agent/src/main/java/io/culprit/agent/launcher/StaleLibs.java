package io.culprit.agent.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Deletes agent extractions that no JVM can still need: every build extracts its own
 * {@code ~/.culprit/lib/<version>-<crc>/} (8 MB) and nothing else removes the old ones.
 *
 * <p>A live JVM keeps the jars it loaded open, so even a wrong guess would not crash it on Linux,
 * but a JVM attached long ago may still read classes lazily from its directory, and a re-attach
 * to it must find its files. So a directory is kept when it is the current one, when it was used
 * in the last hour (the launcher touches it on every launch), or when a live agent's run file
 * names its version (run files hold the version, not the CRC: while any agent of a version is
 * live, every build of that version is kept). If a run directory cannot be read, nothing is
 * pruned. A live agent whose run file is elsewhere ({@code rundir=}, another
 * {@code CULPRIT_RUN_DIR}) is protected by the one-hour rule only.
 *
 * <p>Only directories with a {@code core.jar}, directly under the lib directory and not symbolic
 * links, are candidates; async-profiler's library directory never is. JDK-only, no lambdas (their
 * bootstrap costs attach time) and silent, like the launcher: housekeeping must never stop an
 * agent from starting.
 */
final class StaleLibs {
    static final long KEEP_RECENT_MS = 3600_000L;
    private static final Pattern VERSION = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern RUN_FILE = Pattern.compile("(\\d+)\\.json");

    private StaleLibs() {
    }

    /** The one-hour rule's clock: an extraction counts as used when a launcher last started from it. */
    static void markUsed(Path dir, long nowMs) {
        try {
            Files.setLastModifiedTime(dir, FileTime.fromMillis(nowMs));
        } catch (IOException e) {
            // housekeeping only; the run file still protects this JVM's directory
        }
    }

    /**
     * Prunes siblings of {@code current} in {@code lib}; {@code runDirs} are where live agents
     * write {@code <pid>.json}. Returns what it deleted (for tests).
     */
    static List<Path> prune(Path lib, String current, List<Path> runDirs, long nowMs) {
        List<Path> deleted = new ArrayList<>();
        try {
            List<Path> candidates = new ArrayList<>();
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(lib)) {
                for (Path d : dirs) {
                    if (isOldExtraction(d, current, nowMs)) candidates.add(d);
                }
            }
            if (candidates.isEmpty()) {
                return deleted; // the usual case: one readdir, no run files read
            }
            Set<String> live = liveVersions(runDirs);
            if (live == null) {
                return deleted; // cannot tell what is in use: keep everything
            }
            Path realLib = lib.toRealPath();
            for (Path d : candidates) {
                // d is no link itself; resolving it only resolves its parents. Never outside lib.
                if (inUse(d.getFileName().toString(), live) || !d.toRealPath().getParent().equals(realLib)) continue;
                // Re-read the clock: a launcher of that build may have just started from it.
                if (!isOldExtraction(d, current, nowMs)) continue;
                try {
                    deleteTree(d);
                    deleted.add(d);
                } catch (IOException e) {
                    // another launcher may be deleting it too, or a file is busy: try next time
                }
            }
        } catch (IOException | RuntimeException e) {
            // housekeeping only
        }
        return deleted;
    }

    private static boolean isOldExtraction(Path d, String current, long nowMs) throws IOException {
        return !d.getFileName().toString().equals(current)
                && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                && Files.isRegularFile(d.resolve("core.jar"), LinkOption.NOFOLLOW_LINKS)
                && Files.getLastModifiedTime(d, LinkOption.NOFOLLOW_LINKS).toMillis() < nowMs - KEEP_RECENT_MS;
    }

    private static boolean inUse(String name, Set<String> liveVersions) {
        for (String v : liveVersions) {
            if (name.startsWith(v + "-")) return true;
        }
        return false;
    }

    /**
     * Versions named by run files of JVMs that are still alive (a dead JVM's stale file pins
     * nothing); null if a run directory or a live JVM's run file cannot be read.
     */
    private static Set<String> liveVersions(List<Path> runDirs) {
        Set<String> versions = new HashSet<>();
        for (Path dir : runDirs) {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) continue;
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
                for (Path f : files) {
                    Matcher pid = RUN_FILE.matcher(f.getFileName().toString());
                    if (!pid.matches() || !alive(pid.group(1))) continue;
                    Matcher v = VERSION.matcher(new String(Files.readAllBytes(f), StandardCharsets.UTF_8));
                    if (!v.find()) return null;
                    versions.add(v.group(1));
                }
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
        return versions;
    }

    private static boolean alive(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).isPresent();
        } catch (NumberFormatException e) {
            return false; // not a pid: not a run file
        }
    }

    /** Depth-first; symbolic links are removed as links, never followed. */
    private static void deleteTree(Path dir) throws IOException {
        Files.walkFileTree(dir, new SimpleFileVisitor<Path>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) throw e;
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
