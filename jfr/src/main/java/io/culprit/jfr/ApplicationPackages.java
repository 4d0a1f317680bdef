package io.culprit.jfr;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The packages of the application's own code ({@code target.appPackages} in case.json), as far as
 * the command line that started the JVM tells them. The agent reads them from the loaded classes'
 * origins; a recording has no classes to look at, only the command ({@code sun.java.command}, JFR's
 * {@code jdk.JVMInformation.javaArguments}): a main class ({@code java -cp … com.acme.shop.Main},
 * as Jib's images and IDEs start services) names its package; a jar that is still where the
 * command says (analyze on the host that recorded) is opened like the agent would look at it.
 */
public final class ApplicationPackages {
    /** Enough for any service's own package tree once nested packages are folded into their parents. */
    public static final int MAX = 200;
    /** Launchers whose package says nothing of the application they start. */
    private static final List<String> LAUNCHERS = List.of("org.springframework.boot.loader.", "com.intellij.", "org.gradle.",
            "org.apache.maven.", "org.codehaus.plexus.classworlds.", "org.eclipse.jdt.", "worker.org.gradle.");

    private ApplicationPackages() { }

    /** {@code app.jar --server.port=8080} → the jar's absolute path; null when the command names a main class. */
    public static String mainJar(String command) {
        String first = command == null ? "" : command.trim().split("\\s+", 2)[0];
        if (!first.endsWith(".jar") && !first.endsWith(".war")) return null;
        try {
            return Paths.get(first).toAbsolutePath().normalize().toString();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * From the JVM's command alone: the main class's package, or the application's packages in the
     * jar the command runs when that file is readable here; empty when neither tells (a launcher's
     * main class, a jar recorded on another host).
     */
    public static List<String> ofCommand(String command) {
        String first = command == null ? "" : command.trim().split("\\s+", 2)[0];
        String jar = mainJar(command);
        if (jar != null) return ofJar(Path.of(jar));
        int dot = first.lastIndexOf('.');
        if (dot <= 0 || first.contains("/") || first.startsWith("-")) return List.of();
        for (String l : LAUNCHERS) if (first.startsWith(l)) return List.of();
        return List.of(first.substring(0, dot));
    }

    /**
     * A jar's own packages: those under {@code BOOT-INF/classes} or {@code WEB-INF/classes} (a
     * Spring Boot jar or a war, whose top level is the launcher and whose libraries are nested),
     * else every package at its top level but Spring Boot's launcher (a plain or shaded jar, where
     * the main class's organisation is the best guess: its package alone).
     */
    static List<String> ofJar(Path jar) {
        if (!Files.isReadable(jar)) return List.of();
        TreeSet<String> nested = new TreeSet<>();
        String main = null;
        try (JarFile f = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> e = f.entries(); e.hasMoreElements(); ) {
                String n = e.nextElement().getName();
                for (String root : new String[] {"BOOT-INF/classes/", "WEB-INF/classes/"}) {
                    if (n.startsWith(root) && n.endsWith(".class")) {
                        String pkg = packageOf(n.substring(root.length()));
                        if (pkg != null) nested.add(pkg);
                    }
                }
            }
            Manifest m = f.getManifest();
            if (m != null) main = m.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
        } catch (IOException e) {
            return List.of();
        }
        if (!nested.isEmpty()) return folded(nested);
        return main == null ? List.of() : ofCommand(main);
    }

    /**
     * Of the packages the agent saw loaded from the jar the command runs (a plain or a shaded jar),
     * the application's: those of its main class's organisation ({@link #organisation}). A shaded
     * jar (Dropwizard's, the Maven Shade plugin's) carries every library at its top level beside the
     * application, and would otherwise make Jetty, Jersey and Jackson the application's own code.
     * All of them when the jar tells nothing ({@link #ofJar}: no main class, or a launcher's).
     */
    public static List<String> ofLoadedFromJar(TreeSet<String> loaded, String jar) {
        List<String> declared = jar == null ? List.of() : ofJar(Path.of(jar));
        if (declared.isEmpty()) return folded(loaded);
        TreeSet<String> own = new TreeSet<>(declared);
        for (String p : loaded) {
            for (String d : declared) if ((p + ".").startsWith(organisation(d))) own.add(p);
        }
        return folded(own);
    }

    /**
     * A package's organisation, with its dot: its first two names ({@code com.acme.shop.web} →
     * {@code com.acme.}), three under a code host's ({@code com.github.someone.}), the whole of a
     * one-name package.
     */
    static String organisation(String pkg) {
        String[] names = pkg.split("\\.");
        int keep = names.length > 2 && (pkg.startsWith("com.github.") || pkg.startsWith("io.github.")) ? 3 : Math.min(2, names.length);
        return String.join(".", java.util.Arrays.copyOf(names, keep)) + ".";
    }

    /** {@code com/acme/Shop.class} → {@code com.acme}; null in the default package or for module-info. */
    private static String packageOf(String classFile) {
        int slash = classFile.lastIndexOf('/');
        return slash <= 0 ? null : classFile.substring(0, slash).replace('/', '.');
    }

    /** Sorted packages without those nested in a listed one ({@code a.b} covers {@code a.b.c}), at most {@link #MAX}. */
    public static List<String> folded(TreeSet<String> packages) {
        List<String> out = new ArrayList<>();
        for (String p : packages) {
            // Sorted order puts a package right before those nested in it (or before a sibling that shares its prefix).
            String last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && p.startsWith(last + ".")) continue;
            out.add(p);
            if (out.size() == MAX) break;
        }
        return out;
    }
}
