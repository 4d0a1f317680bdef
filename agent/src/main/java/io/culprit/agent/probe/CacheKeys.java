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
 * argument class. The keys the application hands a cache library itself (Caffeine's
 * {@code computeIfAbsent}, under {@code get(key, loader)} and a loading cache's {@code get};
 * Guava's {@code LocalCache.get(key, loader)}) are counted when their class compares by identity,
 * their method the application's frame that asked, found with one walk per key class (blind round
 * 21's Caffeine keyed by a class without equals read only as a cache that evicts).
 *
 * <p>A class that keeps Object's equals is a fine key when the same instances come back (a
 * {@code Thread}, a singleton, an interned descriptor): what misses is a new instance per call.
 * So each identity-keyed row also counts the calls whose key object was not among the last
 * {@link #RECENT} it saw, by identity hash code.
 */
final class CacheKeys {

    static final String SPRING = "org.springframework.cache.interceptor.SimpleKeyGenerator";
    static final String MICRONAUT = "io.micronaut.cache.interceptor.DefaultCacheKeyGenerator";
    static final String CAFFEINE_BOUNDED = "com.github.benmanes.caffeine.cache.BoundedLocalCache";
    static final String CAFFEINE_UNBOUNDED = "com.github.benmanes.caffeine.cache.UnboundedLocalCache";
    static final String GUAVA = "com.google.common.cache.LocalCache";
    static final List<String> COLUMNS = List.of("method", "key", "keyEquality", "calls", "perRequest", "cache", "newKeys");
    /** Identity hashes remembered per row: a key seen again within this many calls is no new key. */
    static final int RECENT = 16;
    /**
     * Frames a direct cache call's walk passes over for the application's: the cache libraries' and
     * the abstractions over them (Spring's {@code Cache}, JCache's), the JDK's, culprit's.
     */
    private static final String[] LIBRARY = {"com.github.benmanes.caffeine.", "com.google.common.cache.", "org.springframework.cache.",
        "io.micronaut.cache.", "javax.cache.", "org.jsr107.", "java.", "jdk.", "sun.", "io.culprit.", "kotlin."};
    /** Frames of an annotation cache's interceptor: the key it hands the library is counted at its key generator. */
    private static final String[] INTERCEPTORS = {"org.springframework.cache.interceptor.", "org.springframework.cache.jcache.interceptor.",
        "io.micronaut.cache.interceptor."};
    /**
     * What a library hook's map holds for a key class an annotation cache's interceptor hands a library
     * (counted at its generator), and for one that compares by value (a library's String or Long
     * keys say nothing, and are many): neither is counted there. Own instances, compared by identity.
     */
    private static final String INTERCEPTED = new String("(intercepted)"), VALUE = new String("(value)");
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
        final String cache;
        final LongAdder calls = new LongAdder();
        final LongAdder fresh = new LongAdder();
        /** The last keys' identity hashes, written racily: a lost write only counts a key as new again. */
        final int[] recent = new int[RECENT];
        int next;

        Keyed(String method, String key, boolean identity, String cache) {
            this.method = method;
            this.key = key;
            this.identity = identity;
            this.cache = cache;
        }

        void seen(Object key) {
            calls.increment();
            if (!identity) return;
            // Object's hashCode is the identity hash, which the cache has just computed for its lookup.
            int h = System.identityHashCode(key);
            for (int r : recent) if (r == h) return;
            fresh.increment();
            recent[next++ & (RECENT - 1)] = h;
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
                        keyed(returned, method, "spring");
                    }
                },
                new Hook(MICRONAUT, "generateKey", "(Lio/micronaut/core/annotation/AnnotationMetadata;", Hook.EXIT | Hook.RETURNED) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        keyed(returned, null, "micronaut");
                    }
                },
                library(CAFFEINE_BOUNDED, "computeIfAbsent", "(Ljava/lang/Object;Ljava/util/function/Function;ZZ)", "caffeine"),
                library(CAFFEINE_UNBOUNDED, "computeIfAbsent", "(Ljava/lang/Object;Ljava/util/function/Function;ZZ)", "caffeine"),
                library(GUAVA, "get", "(Ljava/lang/Object;Lcom/google/common/cache/CacheLoader;)", "guava"));
    }

    /**
     * A cache library's method that looks a key up and loads it on a miss: its first argument is
     * the key. The application frame that asked is walked once per key class and library: a class
     * keying two caches of one library is charged to the first that was asked.
     */
    private Hook library(String className, String method, String descriptor, String cache) {
        ConcurrentHashMap<Class<?>, String> asked = new ConcurrentHashMap<>();  // by key class: the frame, or a sentinel
        return new Hook(className, method, descriptor, Hook.EXIT | Hook.ARG0) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (arg0 == null) return;
                Class<?> c = arg0.getClass();
                String m = asked.computeIfAbsent(c, k -> LruMaps.comparesByIdentity(k) ? askedFrom() : VALUE);
                if (m != INTERCEPTED && m != VALUE) counted(c, m, cache).seen(arg0);
            }
        };
    }

    /** A key made; {@code method} null: found on the stack. Wrapped arguments are looked at one by one. */
    private void keyed(Object key, String method, String cache) {
        if (key == null) return;
        Object wrapped = WRAPPERS.contains(key.getClass().getName()) ? Reflect.cachedField(key, "params") : null;
        if (wrapped instanceof Object[]) {
            for (Object p : (Object[]) wrapped) if (p != null) argument(p, method, cache);
        } else {
            argument(key, method, cache);
        }
    }

    private void argument(Object arg, String method, String cache) {
        Class<?> c = arg.getClass();
        String m = method != null ? method : walked.computeIfAbsent(c, k -> cachedMethodOnStack());
        counted(c, m, cache).seen(arg);
    }

    /** The row of key class {@code c} under {@code method}; a row that counts nothing once {@link #ROWS_KEPT} are kept. */
    private Keyed counted(Class<?> c, String method, String cache) {
        ConcurrentHashMap<String, Keyed> byMethod = byClass.computeIfAbsent(c, k -> new ConcurrentHashMap<>());
        Keyed k = byMethod.get(method);
        if (k != null) return k;
        synchronized (this) {
            if (rows >= ROWS_KEPT) return OVERFLOW;
            rows++;
        }
        return byMethod.computeIfAbsent(method, x -> new Keyed(x, c.getName(), LruMaps.comparesByIdentity(c), cache));
    }

    /** Counts what no row is kept for, and is never listed. */
    private static final Keyed OVERFLOW = new Keyed("(overflow)", "(overflow)", false, null);

    /**
     * The application frame that called the cache library, {@code a.B.m:12}: the first frame
     * outside the libraries; {@link #INTERCEPTED} when an annotation cache's interceptor did.
     */
    private static String askedFrom() {
        return WALKER.walk(frames -> {
            for (StackWalker.StackFrame f : (Iterable<StackWalker.StackFrame>) frames::iterator) {
                String c = f.getClassName();
                if (startsWithAny(c, INTERCEPTORS)) return INTERCEPTED;
                if (!startsWithAny(c, LIBRARY)) return c + "." + f.getMethodName() + ":" + f.getLineNumber();
            }
            return "(unknown)";
        });
    }

    private static boolean startsWithAny(String s, String[] prefixes) {
        for (String p : prefixes) if (s.startsWith(p)) return true;
        return false;
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
            r.put("cache", k.cache);
            r.put("newKeys", k.identity ? k.fresh.sum() : null);
            out.add(r);
        }
        out.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("calls")).reversed());
        return out;
    }
}
