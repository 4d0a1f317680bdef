package io.culprit.agent.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.net.URLDecoder;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The class named by Premain-Class and Agent-Class. JDK-only, no statics, no logging: this jar
 * sits on the application's class path, so it must stay tiny and carry nothing the application
 * could load by accident (see the OpenTelemetry javaagent). It extracts the two nested jars to a
 * private per-version cache (pruning old versions no JVM still uses, {@link StaleLibs}), puts the
 * bridge on the bootstrap class path, and starts the core
 * in an isolated loader whose parent is the platform loader, so the application's libraries and
 * ours never meet.
 */
public final class AgentLauncher {
    private static final String CORE = "io.culprit.agent.AgentCore";
    private static final String ACCEPT_THREAD = "culprit-accept";

    private AgentLauncher() {
    }

    /** {@code -javaagent:}: a failure must never stop the application from starting. */
    public static void premain(String args, Instrumentation inst) {
        try {
            launch(args, inst, "premain");
        } catch (Throwable t) {
            // The one place we touch the target's stderr: the agent log may not exist yet.
            System.err.println("culprit: agent not started: " + t);
        }
    }

    /** Attach API: a failure propagates so the attaching CLI sees it. */
    public static void agentmain(String args, Instrumentation inst) throws Exception {
        launch(args, inst, "attach");
    }

    private static void launch(String args, Instrumentation inst, String mode) throws Exception {
        String agentArgs = args == null ? "" : args;
        if (handOverToLiveAgent(agentArgs)) {
            return;
        }
        Path jar = attachedJar(agentArgs);
        Path core;
        Path bridge;
        try (JarFile outer = new JarFile(jar.toFile(), false)) {
            JarEntry coreEntry = required(outer, "culprit/core.jar");
            JarEntry bridgeEntry = required(outer, "culprit/bootstrap.jar");
            // The CRCs come from the central directory: a content key without reading the jars.
            String version = String.valueOf(outer.getManifest().getMainAttributes().getValue("Implementation-Version"));
            String key = version + "-" + Long.toHexString(coreEntry.getCrc()) + Long.toHexString(bridgeEntry.getCrc());
            Path culprit = Paths.get(System.getProperty("user.home"), ".culprit");
            Path dir = privateDir(culprit.resolve("lib").resolve(key));
            core = extract(outer, coreEntry, dir.resolve("core.jar"));
            bridge = extract(outer, bridgeEntry, dir.resolve("bootstrap.jar"));
            long now = System.currentTimeMillis();
            StaleLibs.markUsed(dir, now);
            StaleLibs.prune(dir.getParent(), key, runDirs(culprit), now);
        }
        appendBridgeOnce(inst, bridge);
        URLClassLoader loader = new URLClassLoader("culprit", new URL[] {core.toUri().toURL()},
                ClassLoader.getPlatformClassLoader());
        Class.forName(CORE, true, loader)
                .getMethod("start", String.class, Instrumentation.class, String.class)
                .invoke(null, agentArgs, inst, mode);
    }

    /**
     * The jar being attached. This class is loaded once per JVM, by the system loader, from the
     * first culprit jar attached; a later attach of another culprit version finds that class again,
     * so its own code source would start the first version's core. The CLI names its jar in
     * {@code jar=} (URL-encoded, for the commas that separate arguments).
     */
    static Path attachedJar(String agentArgs) throws Exception {
        for (String pair : agentArgs.split(",")) {
            String p = pair.trim();
            if (p.startsWith("jar=")) {
                Path named = Paths.get(URLDecoder.decode(p.substring(4), StandardCharsets.UTF_8));
                if (Files.isRegularFile(named)) return named;
            }
        }
        return Paths.get(AgentLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /**
     * A second attach must not start a second server. The live core's accept thread implements
     * {@link Predicate} (a JDK type both loaders share): it adopts the new arguments (token) and
     * answers false only if it is already detaching, in which case we start afresh.
     */
    @SuppressWarnings("unchecked")
    private static boolean handOverToLiveAgent(String args) {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() * 2 + 16];
        int n = root.enumerate(threads, true);
        for (int i = 0; i < n; i++) {
            Thread t = threads[i];
            if (ACCEPT_THREAD.equals(t.getName()) && t.isAlive() && t instanceof Predicate
                    && ((Predicate<String>) t).test(args)) {
                return true;
            }
        }
        return false;
    }

    /** Where live agents' run files are: the default, and this environment's override if any. */
    private static List<Path> runDirs(Path culprit) {
        List<Path> dirs = new ArrayList<>();
        dirs.add(culprit.resolve("run"));
        String env = System.getenv("CULPRIT_RUN_DIR");
        if (env != null && !env.isEmpty()) {
            dirs.add(Paths.get(env).toAbsolutePath());
        }
        return dirs;
    }

    private static JarEntry required(JarFile jar, String name) throws IOException {
        JarEntry e = jar.getJarEntry(name);
        if (e == null) {
            throw new IOException(jar.getName() + " has no " + name + ": not a culprit agent jar");
        }
        return e;
    }

    /** Owner-only directories: what we load from here runs inside the target. */
    private static Path privateDir(Path dir) throws IOException {
        Path home = Paths.get(System.getProperty("user.home"));
        Path current = home;
        for (Path part : home.relativize(dir)) {
            current = current.resolve(part);
            try {
                Files.createDirectory(current, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                Files.setPosixFilePermissions(current, PosixFilePermissions.fromString("rwx------"));
            }
        }
        return dir;
    }

    /** Reuses a complete earlier extraction; otherwise writes a temp file and renames it atomically. */
    private static Path extract(JarFile jar, JarEntry entry, Path target) throws IOException {
        if (Files.isRegularFile(target) && Files.size(target) == entry.getSize()) {
            return target;
        }
        // Unique per process and moment; not createTempFile, whose SecureRandom costs ~20 ms on attach.
        Path tmp = target.resolveSibling(target.getFileName() + "." + ProcessHandle.current().pid() + "." + System.nanoTime() + ".tmp");
        try (InputStream in = jar.getInputStream(entry)) {
            Files.copy(in, tmp);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target;
    }

    /** After a detach and re-attach the bridge is already on the boot path: append it only once. */
    private static void appendBridgeOnce(Instrumentation inst, Path bridge) throws IOException {
        try (JarFile jar = new JarFile(bridge.toFile(), false)) {
            String probe = null;
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements() && probe == null; ) {
                String n = e.nextElement().getName();
                if (n.endsWith(".class") && !n.contains("-")) {
                    probe = n;
                }
            }
            if (probe == null) {
                return; // nothing to bridge yet
            }
            try {
                Class.forName(probe.substring(0, probe.length() - 6).replace('/', '.'), false, null);
                return;
            } catch (ClassNotFoundException notYet) {
                inst.appendToBootstrapClassLoaderSearch(jar);
            }
        }
    }
}
