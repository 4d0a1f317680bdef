package io.culprit.agent.probe;

import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.Listener;
import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.Plan;
import io.culprit.agent.instrument.TargetResolver;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One framework method a probe weaves, found by exact class name, method name and a descriptor
 * prefix (overloads differ in what they mean: HikariPool.getConnection() delegates to
 * getConnection(long), so weaving both would count every acquire twice). Subclasses are the
 * {@link Listener} the probe advice calls ({@code probeEnter}/{@code probeExit}); they must never
 * throw. Each declares in {@link #reads} what it needs, and the woven code passes nothing else:
 * no entry call for a hook that does not time its method, no exit call for one that only notes
 * its receiver, null for every value it does not read.
 */
abstract class Hook extends Listener {

    /** Timed: an entry that reads the clock (the default {@link #probeEnter}) and an exit. */
    static final int TIMED = Plan.ENTER | Plan.EXIT;
    static final int ENTER = Plan.ENTER, EXIT = Plan.EXIT, SELF = Plan.SELF, ARG0 = Plan.ARG0, ARG1 = Plan.ARG1,
            RETURNED = Plan.RETURNED, OUTER = Plan.OUTER;

    final String className;
    final String method;
    final String descriptorPrefix;
    /** A JDK class (java.net.http's client): woven only by name, never by a pattern. */
    final boolean jdk;
    /** {@link Plan} bits: the calls and values this hook's woven method hands it. */
    final int reads;

    /** A family hook's method names ({@link #family}); null for a hook on one class. */
    final Set<String> names;
    /** Class-name prefixes a family hook leaves alone. */
    private final List<String> excluded;

    Hook(String className, String method, String descriptorPrefix, int reads) {
        this(className, method, descriptorPrefix, reads, null, List.of());
    }

    private Hook(String className, String method, String descriptorPrefix, int reads, Set<String> names, List<String> excluded) {
        this.className = className;
        this.method = method;
        this.descriptorPrefix = descriptorPrefix;
        this.jdk = names == null && TargetResolver.isJdk(className);
        this.reads = reads;
        this.names = names;
        this.excluded = excluded;
    }

    /**
     * A hook on every loaded implementation of a JDK interface ({@code java.sql.Statement}), or
     * subclass of a JDK class ({@code java.util.LinkedHashMap}), outside the JDK, on the methods named {@code names} that each class declares itself, less the
     * classes under the {@code excluded} prefixes. Drivers and pools are many and their classes
     * load late, so {@link Probes} weaves the implementations it has not woven yet at every weave.
     * {@code pattern} is a name pattern that covers {@code names} (it bounds the resolver's search).
     */
    Hook(String iface, String pattern, Set<String> names, String descriptorPrefix, int reads, List<String> excluded) {
        this(iface, pattern, descriptorPrefix, reads, names, excluded);
    }

    /** Weaves the implementations of an interface ({@link #Hook(String, String, Set, String, int, List)}). */
    boolean family() {
        return names != null;
    }

    /**
     * The loaded methods this hook weaves: in its class itself (generated subclasses such as
     * HikariProxyStatement would time the same call twice) and of its overload; for a family
     * hook, in each implementation that declares them.
     */
    List<MethodTarget> targets(Instrumentation inst) throws CommandException {
        List<MethodTarget> out = new ArrayList<>();
        if (family()) {
            for (MethodTarget t : TargetResolver.subtypes(inst, className, method)) {
                if (!names.contains(t.method.name) || !t.method.descriptor.startsWith(descriptorPrefix)) continue;
                if (excluded.stream().noneMatch(t.type.getName()::startsWith)) out.add(t);
            }
            return out;
        }
        for (MethodTarget t : TargetResolver.resolve(inst, className, method, jdk, method.startsWith("<"))) {
            if (!t.type.getName().equals(className) || !t.method.descriptor.startsWith(descriptorPrefix)) continue;
            if ((reads & OUTER) != 0 && !hasOuter(t.type)) continue;  // a JDK whose class has no this$0: not woven
            out.add(t);
        }
        return out;
    }

    /** Whether {@code c} holds an enclosing instance the woven code can read ({@link #OUTER}). */
    private static boolean hasOuter(Class<?> c) {
        try {
            c.getDeclaredField("this$0");
            return true;
        } catch (NoSuchFieldException | SecurityException e) {
            return false;
        }
    }

    /** The start time: only hooks whose reads include ENTER are called here. */
    @Override
    public long probeEnter(int id, Object self, Object arg0) {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return className + "." + method + descriptorPrefix;
    }
}
