package io.culprit.agent.collect;

import io.culprit.jfr.ApplicationPackages;
import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The packages of the application's own code, read from where its loaded classes came from: a
 * Spring Boot jar's {@code BOOT-INF/classes}, a war's {@code WEB-INF/classes}, a classes directory
 * (an IDE, {@code mvn spring-boot:run}, tests), or else the jar named on the command line. The
 * rules otherwise know the application only as "not a library they list", and count every unlisted
 * library (ModelMapper, OGNL, networknt's validator) as the service's own code. Runs once per
 * collection, at its stop, on the command thread.
 */
final class AppPackages {
    private AppPackages() { }

    /** The application's packages, sorted, without those inside another listed one; empty when none is known. */
    static List<String> of(Instrumentation inst) {
        if (inst == null) return List.of(); // a command context without the JVM's instrumentation (tests)
        String mainJar = ApplicationPackages.mainJar(System.getProperty("sun.java.command", ""));
        Map<ProtectionDomain, Source> sources = new IdentityHashMap<>();
        TreeSet<String> own = new TreeSet<>(), ofMainJar = new TreeSet<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (c.getClassLoader() == null || c.isArray()) continue;
            String name = c.getName();
            int dot = name.lastIndexOf('.');
            // Hidden classes and lambdas (a/b/C$$Lambda/0x…) and the default package name no package.
            if (dot <= 0 || name.indexOf('/') >= 0 || isCulprits(name)) continue;
            String pkg = name.substring(0, dot);
            if (own.contains(pkg) || ofMainJar.contains(pkg)) continue;
            Source s = sources.computeIfAbsent(c.getProtectionDomain(), pd -> source(pd, mainJar));
            if (s == Source.OWN) own.add(pkg);
            else if (s == Source.MAIN_JAR && !pkg.startsWith("org.springframework.boot.loader")) ofMainJar.add(pkg);
        }
        // The command line's jar is the application's only when nothing nested or unpacked is; a
        // Spring Boot jar holds its launcher (org.springframework.boot.loader) at the top, never the
        // application's; a shaded jar holds its libraries there too.
        return own.isEmpty() ? ApplicationPackages.ofLoadedFromJar(ofMainJar, mainJar) : ApplicationPackages.folded(own);
    }

    /** culprit's own classes, which come from a classes directory in its own tests (the lab's io.culprit.lab is an application). */
    static boolean isCulprits(String className) {
        return className.startsWith("io.culprit.agent.") || className.startsWith("io.culprit.bootstrap.")
                || className.startsWith("io.culprit.jfr.") || className.startsWith("io.culprit.model.");
    }

    enum Source { OWN, MAIN_JAR, OTHER }

    static Source source(ProtectionDomain pd, String mainJar) {
        CodeSource cs = pd == null ? null : pd.getCodeSource();
        URL u = cs == null ? null : cs.getLocation();
        if (u == null) return Source.OTHER;
        String s = u.toString();
        if (s.contains("BOOT-INF/classes") || s.contains("WEB-INF/classes")) return Source.OWN;
        if (!s.startsWith("file:")) return Source.OTHER;
        if (s.endsWith("/")) return Source.OWN; // a classes directory
        try {
            return mainJar != null && Paths.get(u.toURI()).toAbsolutePath().normalize().toString().equals(mainJar) ? Source.MAIN_JAR : Source.OTHER;
        } catch (Exception e) {
            return Source.OTHER;
        }
    }
}
