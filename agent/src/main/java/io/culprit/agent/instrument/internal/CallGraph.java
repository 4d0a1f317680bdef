package io.culprit.agent.instrument.internal;

import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.TargetResolver;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * For {@code trace --depth D}: the methods whose call sites must be woven so that D levels of
 * calls below the root are timed. A call resolves statically to the loaded classes that declare
 * or override the callee (implementations for interface calls, lambda bodies for
 * {@code invokedynamic}); JDK callees are timed at their call site but never entered.
 */
public final class CallGraph {

    /** Beyond this many woven methods trace refuses: the breaker would trip anyway. */
    public static final int MAX_METHODS = 2_000;

    private final Instrumentation inst;
    private final boolean includeJdk;
    private final Map<String, List<Class<?>>> byName = new HashMap<>();
    private final Class<?>[] loaded;
    private final Map<Class<?>, List<ClassBytes.Method>> methodCache = new HashMap<>();

    public CallGraph(Instrumentation inst, boolean includeJdk) {
        this.inst = inst;
        this.includeJdk = includeJdk;
        this.loaded = inst.getAllLoadedClasses();
        for (Class<?> c : loaded) {
            byName.computeIfAbsent(c.getName(), k -> new ArrayList<>()).add(c);
        }
    }

    /** The roots, then every method reachable in fewer than {@code depth} calls, each once. */
    public List<MethodTarget> expand(List<MethodTarget> roots, int depth) throws CommandException {
        Map<String, MethodTarget> all = new LinkedHashMap<>();
        List<MethodTarget> level = new ArrayList<>();
        for (MethodTarget r : roots) {
            if (all.putIfAbsent(key(r), r) == null) {
                level.add(r);
            }
        }
        for (int d = 1; d < depth; d++) {
            List<MethodTarget> next = new ArrayList<>();
            for (MethodTarget m : level) {
                for (String[] call : m.method.calls) {
                    for (MethodTarget callee : callees(call[0].replace('/', '.'), call[1], call[2])) {
                        if (all.putIfAbsent(key(callee), callee) == null) {
                            next.add(callee);
                        }
                    }
                }
            }
            if (all.size() > MAX_METHODS) {
                throw new CommandException("trace --depth " + depth + " would weave more than " + MAX_METHODS
                        + " methods; lower --depth or trace a method further down");
            }
            level = next;
        }
        return new ArrayList<>(all.values());
    }

    private List<MethodTarget> callees(String owner, String name, String descriptor) {
        List<MethodTarget> out = new ArrayList<>();
        if ((!includeJdk && TargetResolver.isJdk(owner)) || "<clinit>".equals(name)) {
            return out;
        }
        for (Class<?> c : byName.getOrDefault(owner, List.of())) {
            // The declaration that runs for an exact-type receiver: the class or its nearest ancestor.
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                MethodTarget t = declared(k, name, descriptor);
                if (t != null) {
                    out.add(t);
                    break;
                }
            }
            if ("<init>".equals(name) || Modifier.isFinal(c.getModifiers())) {
                continue;
            }
            for (Class<?> sub : loaded) {  // overrides in loaded subtypes: the receiver may be one
                if (sub != c && c.isAssignableFrom(sub)) {
                    MethodTarget t = declared(sub, name, descriptor);
                    if (t != null) {
                        out.add(t);
                    }
                }
            }
        }
        return out;
    }

    private MethodTarget declared(Class<?> c, String name, String descriptor) {
        if (!includeJdk && TargetResolver.isJdk(c.getName())) {
            return null;
        }
        for (ClassBytes.Method m : methodCache.computeIfAbsent(c, ClassBytes::methods)) {
            if (m.concrete() && m.name.equals(name) && m.descriptor.equals(descriptor)
                    && TargetResolver.weavable(inst, c)) {
                return new MethodTarget(c, m);
            }
        }
        return null;
    }

    private static String key(MethodTarget t) {
        return System.identityHashCode(t.type) + t.type.getName() + "." + t.method.key();
    }
}
