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

    final Map<Class<?>, Map<String, Integer>> advised = new LinkedHashMap<>();
    final Map<Class<?>, Map<String, MethodTarget>> callSites = new LinkedHashMap<>();
    final boolean withArgs;
    final SiteRegistrar registrar;

    /**
     * @param withArgs weave the argument-passing advice (watch) instead of the lean one
     * @param registrar site ids for call-site weaving, or null when no call sites are woven
     */
    public Plan(boolean withArgs, SiteRegistrar registrar) {
        this.withArgs = withArgs;
        this.registrar = registrar;
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
