package io.culprit.agent.probe;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The keys that annotation-driven caches ({@code @Cacheable}) build from a method's arguments:
 * Spring's {@code SimpleKeyGenerator} and Micronaut's {@code DefaultCacheKeyGenerator} return the
 * one argument itself, or a key that wraps them all ({@code SimpleKey}, {@code ParametersKey})
 * and compares them with their own equals. An argument whose class keeps Object's equals or
 * hashCode ({@link LruMaps#comparesByIdentity}) makes a key that no later call can equal: the
 * cache misses on every call and runs the method, whatever its size or expiry. Counted per cached
 * method and argument class; the cached method is Spring's {@code Method} argument, or for
 * Micronaut the generated {@code $X$Intercepted} frame on the stack, found with one walk per
 * argument class.
 */
final class CacheKeys {

    static final String SPRING = "org.springframework.cache.interceptor.SimpleKeyGenerator";
    static final String MICRONAUT = "io.micronaut.cache.interceptor.DefaultCacheKeyGenerator";
    static final List<String> COLUMNS = List.of("method", "key", "keyEquality", "calls", "perRequest");
    /** The keys that wrap several arguments, each kept in a {@code params} array. */
    private static final java.util.Set<String> WRAPPERS = java.util.Set.of("org.springframework.cache.interceptor.SimpleKey",
            "io.micronaut.cache.interceptor.ParametersKey");
    /** Distinct (method, class) rows kept: past it a new one is not counted. */
    private static final int ROWS_KEPT = 256;
    private static final StackWalker WALKER = StackWalker.getInstance();

    private static final class Keyed {
        final String method;
        final String key;
        final boolean identity;
        final LongAdder calls = new LongAdder();

        Keyed(String method, String key, boolean identity) {
            this.method = method;
            this.key = key;
            this.identity = identity;
        }
    }

    /** By argument class, then by cached method (usually one). */
    private final ConcurrentHashMap<Class<?>, ConcurrentHashMap<String, Keyed>> byClass = new ConcurrentHashMap<>();
    /** Micronaut: the cached method found for an argument class, by one stack walk. */
    private final ConcurrentHashMap<Class<?>, String> walked = new ConcurrentHashMap<>();
    private int rows;

    List<Hook> hooks() {
        return List.of(
                new Hook(SPRING, "generate", "(Ljava/lang/Object;Ljava/lang/reflect/Method;", Hook.EXIT | Hook.ARG1 | Hook.RETURNED) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        String method = arg1 instanceof Method
                                ? ((Method) arg1).getDeclaringClass().getName() + "." + ((Method) arg1).getName() : null;
                        keyed(returned, method);
                    }
                },
                new Hook(MICRONAUT, "generateKey", "(Lio/micronaut/core/annotation/AnnotationMetadata;", Hook.EXIT | Hook.RETURNED) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        keyed(returned, null);
                    }
                });
    }

    /** A key made; {@code method} null: found on the stack. Wrapped arguments are looked at one by one. */
    private void keyed(Object key, String method) {
        if (key == null) return;
        Object wrapped = WRAPPERS.contains(key.getClass().getName()) ? Reflect.cachedField(key, "params") : null;
        if (wrapped instanceof Object[]) {
            for (Object p : (Object[]) wrapped) if (p != null) argument(p.getClass(), method);
        } else {
            argument(key.getClass(), method);
        }
    }

    private void argument(Class<?> c, String method) {
        String m = method != null ? method : walked.computeIfAbsent(c, k -> cachedMethodOnStack());
        ConcurrentHashMap<String, Keyed> byMethod = byClass.computeIfAbsent(c, k -> new ConcurrentHashMap<>());
        Keyed k = byMethod.get(m);
        if (k == null) {
            synchronized (this) {
                if (rows >= ROWS_KEPT) return;
                rows++;
            }
            k = byMethod.computeIfAbsent(m, x -> new Keyed(x, c.getName(), LruMaps.comparesByIdentity(c)));
        }
        k.calls.increment();
    }

    /** The method Micronaut intercepts: its generated subclass's frame, {@code a.b.$X$Definition$Intercepted.m} → {@code a.b.X.m}. */
    private static String cachedMethodOnStack() {
        return WALKER.walk(frames -> frames.filter(f -> f.getClassName().endsWith("$Intercepted")).findFirst()
                .map(f -> {
                    String c = f.getClassName();
                    int dot = c.lastIndexOf('.');
                    // $X$Intercepted, or $X$Definition$Intercepted for a bean declared by its class
                    String simple = c.substring(dot + 1).replace("$Intercepted", "").replace("$Definition", "");
                    if (simple.startsWith("$")) simple = simple.substring(1);
                    return c.substring(0, dot + 1) + simple + "." + f.getMethodName();
                }).orElse("(unknown)"));
    }

    boolean isEmpty() {
        return byClass.isEmpty();
    }

    /** Rows of table {@code cache-keys}, most keys first. */
    List<Map<String, Object>> rows(long requests) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Map<String, Keyed> byMethod : byClass.values()) for (Keyed k : byMethod.values()) {
            long n = k.calls.sum();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("method", k.method);
            r.put("key", k.key);
            r.put("keyEquality", k.identity ? "identity" : "value");
            r.put("calls", n);
            r.put("perRequest", requests > 0 ? (double) n / requests : null);
            out.add(r);
        }
        out.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("calls")).reversed());
        return out;
    }
}
