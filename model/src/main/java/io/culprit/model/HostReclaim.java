package io.culprit.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Whether this host pages out memory a process leaves idle: a running DAMON kdamond with a
 * {@code pageout} scheme (sysfs, {@code /sys/kernel/mm/damon/admin}). On such a host a JVM idle for
 * about a second loses its file-backed pages (without swap: libjvm's text, the CDS archive, the
 * modules image) and its next request refaults them, 40-150 ms on session 48's machine: any
 * service's latency then depends on the idle gap before a request, whatever its code does. The
 * case records it ({@code target.hostReclaim}) so that idle-gap-latency can tell the host's reclaim
 * from a cache that expires.
 */
public final class HostReclaim {

    private static final Path KDAMONDS = Path.of("/sys/kernel/mm/damon/admin/kdamonds");

    private HostReclaim() { }

    /** "kdamond 0: pageout of regions idle for 12 aggregations", or "" when none runs (or not Linux). */
    public static String describe() {
        if (!Files.isDirectory(KDAMONDS)) return "";
        try (Stream<Path> kdamonds = Files.list(KDAMONDS)) {
            for (Path k : (Iterable<Path>) kdamonds::iterator) {
                if (!"on".equals(read(k.resolve("state")))) continue;
                try (Stream<Path> schemes = Files.walk(k.resolve("contexts"), 5)) {
                    for (Path action : (Iterable<Path>) schemes.filter(p -> p.getFileName().toString().equals("action"))::iterator) {
                        if (!"pageout".equals(read(action))) continue;
                        String age = read(action.resolveSibling("access_pattern").resolve("age").resolve("min"));
                        return "kdamond " + k.getFileName() + ": pageout of regions idle for " + age + " aggregations";
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return "";  // sysfs unreadable (a container without it): nothing known, nothing claimed
        }
        return "";
    }

    private static String read(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException e) {
            return "";
        }
    }
}
