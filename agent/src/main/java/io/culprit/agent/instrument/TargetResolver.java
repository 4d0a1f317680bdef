package io.culprit.agent.instrument;

import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.internal.ClassBytes;
import io.culprit.agent.instrument.internal.NamePattern;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Turns {@code CLASS METHOD} patterns into the loaded methods to weave. Interfaces and abstract
 * classes stand for their loaded implementations; inner classes and lambda bodies are ordinary
 * names ({@code Outer$Inner}, {@code lambda$*}). JDK core classes are refused unless asked for.
 */
public final class TargetResolver {

    private static final String[] JDK_PREFIXES = {"java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.", "org.xml."};

    /** Beyond this the weaving itself takes seconds and the breaker would stop the command anyway. */
    static final int MAX_METHODS = 2_000;

    private TargetResolver() { }

    public static boolean isJdk(String className) {
        for (String p : JDK_PREFIXES) {
            if (className.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The packages of what the agent carries into a target (agent-bootstrap, model, jfr, agent).
     * The rest of io.culprit is not the agent: the lab is a target like any other, and the
     * verdicts' confirm commands trace it.
     */
    private static final String[] AGENT_PREFIXES = {"io.culprit.agent.", "io.culprit.bootstrap.", "io.culprit.model.",
        "io.culprit.jfr.", "net.bytebuddy.", "org.HdrHistogram."};

    /** Classes the agent must never weave: itself, its libraries, hidden and array classes. */
    public static boolean weavable(Instrumentation inst, Class<?> c) {
        String n = c.getName();
        return !c.isArray() && !c.isPrimitive() && n.indexOf('/') < 0 && !n.contains("$$Lambda")
                && !agentOwn(n) && inst.isModifiableClass(c);
    }

    /** Whether a class is the agent's own: off limits, except the *.fixture.* targets of its tests. */
    static boolean agentOwn(String className) {
        if (className.contains(".fixture.")) return false;
        for (String p : AGENT_PREFIXES) {
            if (className.startsWith(p)) return true;
        }
        return false;
    }

    /**
     * The methods matching {@code methodPattern} that loaded classes outside the JDK declare
     * themselves, in every weavable subtype of {@code base}: an interface's implementations, or the
     * subclasses of a concrete JDK class ({@code java.util.LinkedHashMap}), which {@link #resolve}
     * refuses as a pattern a user types. For the probes, which name their methods exactly.
     */
    public static List<MethodTarget> subtypes(Instrumentation inst, String base, String methodPattern) {
        NamePattern mp = new NamePattern(methodPattern);
        Class<?>[] loaded = inst.getAllLoadedClasses();
        Class<?> root = null;
        for (Class<?> c : loaded) {
            if (c.getName().equals(base)) root = c;  // a same-named class in another loader would be a second root: rare, and then missed
        }
        List<MethodTarget> out = new ArrayList<>();
        if (root == null) return out;
        for (Class<?> c : loaded) {
            if (c == root || c.isInterface() || isJdk(c.getName()) || !root.isAssignableFrom(c) || !weavable(inst, c)) continue;
            for (ClassBytes.Method m : ClassBytes.methods(c)) {
                if (m.concrete() && !m.isConstructor() && mp.matches(m.name)) out.add(new MethodTarget(c, m));
            }
        }
        return out;
    }

    public static List<MethodTarget> resolve(Instrumentation inst, String classPattern, String methodPattern,
                                             boolean includeJdk, boolean constructors) throws CommandException {
        NamePattern cp = new NamePattern(classPattern);
        NamePattern mp = new NamePattern(methodPattern);
        Class<?>[] loaded = inst.getAllLoadedClasses();
        Set<Class<?>> matched = new LinkedHashSet<>();
        // A JDK interface or abstract class named exactly (java.sql.PreparedStatement) is not woven
        // without --include-jdk, but still stands for the application's and drivers' implementations;
        // a wildcard over JDK packages (java.util.*) would stand for half the application.
        boolean exact = classPattern.indexOf('*') < 0 && classPattern.indexOf('?') < 0;
        Set<Class<?>> supertypes = new LinkedHashSet<>();
        boolean refusedJdk = false;
        for (Class<?> c : loaded) {
            if (cp.matches(c.getName()) && weavable(inst, c)) {
                boolean abstractType = c.isInterface() || Modifier.isAbstract(c.getModifiers());
                boolean jdk = isJdk(c.getName());
                if (abstractType && (exact || !jdk || includeJdk)) supertypes.add(c);
                if (jdk && !includeJdk) {
                    refusedJdk = true;
                } else {
                    matched.add(c);
                }
            }
        }
        Set<Class<?>> types = new LinkedHashSet<>(matched);
        for (Class<?> c : supertypes) {
            for (Class<?> impl : loaded) {
                if (impl != c && c.isAssignableFrom(impl) && weavable(inst, impl)
                        && (includeJdk || !isJdk(impl.getName()))) {
                    types.add(impl);
                }
            }
        }
        if (types.isEmpty() && refusedJdk) {
            throw new CommandException("refused: '" + classPattern + "' matches JDK core classes only;"
                    + " add --include-jdk to weave them (every caller in the JVM pays)");
        }
        if (types.isEmpty()) {
            throw new CommandException("no class matches '" + classPattern + "'" + closeMatches(loaded, classPattern));
        }
        List<MethodTarget> out = new ArrayList<>();
        for (Class<?> c : types) {
            for (ClassBytes.Method m : ClassBytes.methods(c)) {
                // Constructors only when asked for by name: '*' means methods, '<init>' constructors.
                if (m.concrete() && mp.matches(m.name) && !"<clinit>".equals(m.name)
                        && (!m.isConstructor() || (constructors && methodPattern.startsWith("<")))) {
                    out.add(new MethodTarget(c, m));
                }
            }
        }
        if (out.size() > MAX_METHODS) {
            throw new CommandException("'" + classPattern + "' '" + methodPattern + "' matches " + out.size()
                    + " methods in " + types.size() + " classes (at most " + MAX_METHODS + "); narrow the patterns");
        }
        if (out.isEmpty()) {
            String names = ClassBytes.methods(types.iterator().next()).stream().map(m -> m.name)
                    .filter(n -> !n.startsWith("<")).distinct().limit(8).collect(Collectors.joining(", "));
            throw new CommandException("no method matches '" + methodPattern + "' in " + types.size()
                    + " class(es) matching '" + classPattern + "'" + (names.isEmpty() ? "" : " (methods: " + names + ")"));
        }
        return out;
    }

    /**
     * Up to three loaded class names closest to the pattern's simple name, for the error line; for a
     * pattern whose simple name is (nearly) all wildcards, the packages beside the one it names.
     */
    static String closeMatches(Class<?>[] loaded, String pattern) {
        String wanted = simple(pattern).replace("*", "").replace("?", "").toLowerCase();
        if (wanted.length() < 3) {
            return nearPackages(loaded, pattern);
        }
        List<String> best = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (Class<?> c : loaded) {
            String n = c.getName();
            if (c.isArray() || n.contains("$$Lambda") || n.indexOf('/') >= 0 || agentOwn(n) || !seen.add(n)) {
                continue;
            }
            best.add(n);
        }
        List<String> top = best.stream()
                .map(n -> new Object[] {n, distance(simple(n).toLowerCase(), wanted)})
                .filter(o -> (int) o[1] <= Math.max(2, wanted.length() / 3))
                .sorted(Comparator.comparingInt((Object[] o) -> (int) o[1]).thenComparing(o -> (String) o[0]))
                .limit(3).map(o -> (String) o[0]).collect(Collectors.toList());
        return top.isEmpty() ? "" : "; close matches: " + String.join(", ", top);
    }

    /**
     * For {@code io.culprit.lab.catalog.*}: the packages loaded under the longest prefix of its
     * package that has any ({@code io.culprit.lab.customers, io.culprit.lab.orders, ...}).
     */
    static String nearPackages(Class<?>[] loaded, String pattern) {
        int cut = pattern.length();
        for (char w : new char[] {'*', '?'}) {
            if (pattern.indexOf(w) >= 0) cut = Math.min(cut, pattern.indexOf(w));
        }
        String[] segments = pattern.substring(0, pattern.lastIndexOf('.', cut) + 1).split("\\.");
        for (int k = segments.length; k >= 1; k--) {
            String prefix = String.join(".", Arrays.copyOf(segments, k)) + ".";
            Set<String> packages = new TreeSet<>();
            for (Class<?> c : loaded) {
                String n = c.getName();
                int dot = n.indexOf('.', prefix.length());
                if (n.startsWith(prefix) && dot > 0 && !agentOwn(n)) packages.add(n.substring(0, dot));
            }
            if (!packages.isEmpty()) {
                return "; packages loaded under " + prefix.substring(0, prefix.length() - 1) + ": "
                        + packages.stream().limit(8).collect(Collectors.joining(", "))
                        + (packages.size() > 8 ? " (+" + (packages.size() - 8) + " more)" : "");
            }
        }
        return "";
    }

    private static String simple(String name) {
        return name.substring(name.lastIndexOf('.') + 1);
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
