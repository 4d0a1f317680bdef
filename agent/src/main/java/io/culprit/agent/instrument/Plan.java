package io.culprit.agent.instrument;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What one command weaves: methods that get entry/exit advice (each with its id) and methods
 * whose call sites get before/after hooks (trace). Built before install, read by the transformer.
 */
public final class Plan {

    /**
     * Hands out a site id for one call instruction; must return the same id for the same site,
     * or a negative number to leave the call unwoven.
     */
    public interface SiteRegistrar {
        int site(MethodTarget caller, int index, String owner, String name, String descriptor, int line);
    }

    /**
     * What a framework probe's woven method hands its hook ({@link #advise(MethodTarget, int, int)}):
     * an entry call, an exit call, and which values they carry; values not asked for pass as null.
     * {@link #OUTER}: the receiver's enclosing instance (an inner class's {@code this$0}), passed
     * where ARG0 goes, for hooks on a method without arguments.
     */
    public static final int ENTER = 1, EXIT = 2, SELF = 4, ARG0 = 8, ARG1 = 16, RETURNED = 32, OUTER = 64;

    final Map<Class<?>, Map<String, Integer>> advised = new LinkedHashMap<>();
    /** Per method, its {@link #ENTER}... bits: present only in a {@link #forProbes()} plan. */
    final Map<Class<?>, Map<String, Integer>> reads = new LinkedHashMap<>();
    final boolean probes;
    final Map<Class<?>, Map<String, MethodTarget>> callSites = new LinkedHashMap<>();
    final boolean withArgs;
    final SiteRegistrar registrar;

    /**
     * @param withArgs weave the argument-passing advice (watch) instead of the lean one
     * @param registrar site ids for call-site weaving, or null when no call sites are woven
     */
    public Plan(boolean withArgs, SiteRegistrar registrar) {
        this(withArgs, registrar, false);
    }

    private Plan(boolean withArgs, SiteRegistrar registrar, boolean probes) {
        this.withArgs = withArgs;
        this.registrar = registrar;
        this.probes = probes;
    }

    /** A plan of framework probes: each method woven with the probe advice its reads ask for. */
    public static Plan forProbes() {
        return new Plan(false, null, true);
    }

    /** A probe's method: {@code reads} says which calls and values its hook gets (ENTER, EXIT, SELF...). */
    public void advise(MethodTarget target, int id, int reads) {
        if (!probes) {
            throw new IllegalStateException("not a probe plan");
        }
        advise(target, id);
        this.reads.computeIfAbsent(target.type, k -> new LinkedHashMap<>()).put(target.method.key(), reads);
    }

    public void advise(MethodTarget target, int id) {
        advised.computeIfAbsent(target.type, k -> new LinkedHashMap<>()).put(target.method.key(), id);
    }

    public void weaveCalls(MethodTarget target) {
        if (registrar == null) {
            throw new IllegalStateException("no site registrar");
        }
        callSites.computeIfAbsent(target.type, k -> new LinkedHashMap<>()).put(target.method.key(), target);
    }

    public Set<Class<?>> classes() {
        Set<Class<?>> all = new HashSet<>(advised.keySet());
        all.addAll(callSites.keySet());
        return all;
    }

    public int methodCount() {
        Set<String> keys = new HashSet<>();
        advised.forEach((c, m) -> m.keySet().forEach(k -> keys.add(c.getName() + k)));
        callSites.forEach((c, m) -> m.keySet().forEach(k -> keys.add(c.getName() + k)));
        return keys.size();
    }
}
