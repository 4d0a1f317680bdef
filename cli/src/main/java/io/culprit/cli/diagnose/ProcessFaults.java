package io.culprit.cli.diagnose;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's major page faults so far ({@code majflt}, field 12 of {@code /proc/PID/stat}): pages
 * read back from disk because the kernel had dropped them. Counted around each request of the
 * idle-gap load, they tell a request that refaulted the JVM's own memory after an idle gap (the
 * host reclaimed it) from one that redid application work.
 */
final class ProcessFaults {
    private final Path stat;

    ProcessFaults(long pid) {
        this.stat = Path.of("/proc", Long.toString(pid), "stat");
    }

    /** The count so far, or -1 where /proc is not there to read (not Linux, or the process is gone). */
    long major() {
        try {
            return parseMajor(Files.readString(stat));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
    static long parseMajor(String line) {
        String[] f = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(f[12 - 3]);
    }
}
