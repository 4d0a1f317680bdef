package io.culprit.cli.agent;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What this machine knows about local JVMs without attaching to them: the Attach API's list
 * (hsperfdata) for pids and main classes, {@code /proc} for owners, uptime and the JDK's
 * {@code release} file for the version. Attaching just to read a version would start the
 * target's attach listener, which a read-only {@code ps} must not do.
 */
public final class LocalJvms {

    /** One local JVM. */
    public static final class Jvm {
        public final long pid;
        public final String main;
        public final String javaVersion;
        public final long uptimeMs;
        public final String owner;

        Jvm(long pid, String main, String javaVersion, long uptimeMs, String owner) {
            this.pid = pid;
            this.main = main;
            this.javaVersion = javaVersion;
            this.uptimeMs = uptimeMs;
            this.owner = owner;
        }
    }

    private LocalJvms() {
    }

    public static List<Jvm> list() {
        List<Jvm> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        for (VirtualMachineDescriptor d : VirtualMachine.list()) {
            long pid;
            try {
                pid = Long.parseLong(d.id());
            } catch (NumberFormatException e) {
                continue;
            }
            if (pid == self || !Files.isDirectory(Path.of("/proc", d.id()))) continue;
            out.add(new Jvm(pid, mainOf(d.displayName()), javaVersion(pid).orElse("?"), uptimeMs(pid), owner(pid).orElse("?")));
        }
        out.sort((a, b) -> Long.compare(a.pid, b.pid));
        return out;
    }

    /** Checks that {@code pid} is a JVM this user may attach to; throws with the reason if not. */
    public static void requireAttachable(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        if (!Files.isDirectory(proc)) {
            throw new CulpritException("no process with pid " + pid, 2);
        }
        Optional<String> owner = owner(pid);
        String me = System.getProperty("user.name");
        if (owner.isPresent() && !owner.get().equals(me) && !"root".equals(me)) {
            throw new CulpritException("process " + pid + " belongs to user " + owner.get() + "; run culprit as that user", 2);
        }
        if (!isJava(pid)) {
            throw new CulpritException("process " + pid + " is not a Java VM (" + commandOf(pid) + ")", 2);
        }
    }

    static boolean isJava(long pid) {
        for (VirtualMachineDescriptor d : VirtualMachine.list()) {
            if (d.id().equals(Long.toString(pid))) return true;
        }
        // -XX:-UsePerfData or a JVM in another container hides from the list; the exe still tells.
        return exe(pid).map(p -> p.getFileName().toString().equals("java")).orElse(false);
    }

    static String mainOf(String displayName) {
        if (displayName == null || displayName.isBlank()) return "?";
        String first = displayName.strip().split("\\s+")[0];
        return first;
    }

    static Optional<Path> exe(long pid) {
        try {
            return Optional.of(Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "exe")));
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    static String commandOf(long pid) {
        try {
            String cmd = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ').strip();
            return cmd.length() > 60 ? cmd.substring(0, 60) + "..." : cmd;
        } catch (IOException e) {
            return "unknown command";
        }
    }

    /** JAVA_VERSION from the {@code release} file of the JDK the process runs. */
    static Optional<String> javaVersion(long pid) {
        Optional<Path> exe = exe(pid);
        if (exe.isEmpty() || exe.get().getParent() == null || exe.get().getParent().getParent() == null) return Optional.empty();
        Path release = exe.get().getParent().getParent().resolve("release");
        try {
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_VERSION=")) return Optional.of(line.substring(13).replace("\"", ""));
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    static long uptimeMs(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant())
                .map(start -> System.currentTimeMillis() - start.toEpochMilli()).orElse(-1L);
    }

    static Optional<String> owner(long pid) {
        try {
            UserPrincipal p = Files.getOwner(Path.of("/proc", Long.toString(pid)));
            return Optional.of(p.getName());
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
