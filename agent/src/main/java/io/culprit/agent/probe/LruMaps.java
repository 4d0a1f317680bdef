package io.culprit.agent.probe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Hand-made LRU caches: the application's subclasses of {@code LinkedHashMap} that bound
 * themselves in {@code removeEldestEntry}. The map calls it once per new key (a miss that was
 * filled), and its answer says whether the eldest entry goes: so the hook counts a cache's fills
 * and evictions without touching its lookups. A map evicting on most requests is smaller than the
 * keys the requests use, and every eviction is a value computed again later; the profile and the
 * calls say what computing one costs (diagnosis' cache-misses). The method that fills the map is
 * found with one stack walk per class, at its first eviction, and the evicted key's class is
 * looked at then too: a key whose class keeps Object's equals or hashCode is equal only to
 * itself, so a key made afresh for each lookup never finds the entry stored under an equal one,
 * and the cache misses whatever its bound.
 *
 * <p>A bounded map is not always a cache: an archive of the newest receipts, keyed by a number
 * that never comes back, evicts on every insert and recomputes nothing (the lab's receipt-leak
 * fixed twin read as a thrashing cache). So a sample of the evicted keys (one in
 * {@link #SAMPLE} by hash) is remembered by hash code, and an evicted key seen evicted before is
 * counted as one that came back: a cache's keys return, an archive's do not.
 */
final class LruMaps {

    static final String BASE = "java.util.LinkedHashMap";
    static final List<String> COLUMNS = List.of("map", "bound", "inserts", "evictions", "evictionsPerRequest", "filler", "fillPath",
            "key", "keyEquality", "sampledEvictions", "returnedKeys");
    /** One evicted key in this many (by its hash's bits) is remembered: 4,096 slots then cover ~65,000 keys. */
    static final int SAMPLE = 16;
    /** Remembered evicted keys' hash codes per map class, a slot each: a later one in the slot overwrites. */
    static final int SLOTS = 4096;
    /**
     * Frameworks' own subclasses, left unwoven: Spring's LinkedCaseInsensitiveMap bounds nothing
     * but is called for every header of every request, and the rest are not caches of computed values.
     */
    static final List<String> FRAMEWORKS = List.of("org.springframework.", "org.apache.", "ch.qos.logback.", "com.fasterxml.", "tools.jackson.",
            "org.hibernate.", "io.netty.", "org.eclipse.", "io.undertow.", "com.zaxxer.", "org.h2.", "org.postgresql.",
            "com.mysql.", "org.mariadb.", "kotlin.", "scala.", "groovy.", "org.yaml.", "io.micrometer.");

    /** One map class's counts: the JVM's maps of that class together. */
    static final class Stats {
        final String map;
        final LongAdder inserts = new LongAdder();
        final LongAdder evictions = new LongAdder();
        /** The largest size the map was trimmed back to; -1 before its first eviction. Racy max: a bound is one number. */
        volatile int bound = -1;
        volatile CallSite filler;
        /** The class of the first evicted key, and whether it compares by identity: set with the filler. */
        volatile String key;
        volatile boolean identityKey;
        /** Evictions whose key was sampled, and of those the keys found evicted before. */
        final LongAdder sampled = new LongAdder();
        final LongAdder returned = new LongAdder();
        /** Sampled evicted keys' hash codes (0: empty), written racily: a lost write forgets one key. */
        final int[] evicted = new int[SLOTS];

        Stats(String map) {
            this.map = map;
        }

        /** An evicted key's hash: counted as sampled (one in {@link #SAMPLE}), and as returned when evicted before. */
        void evicted(int hash) {
            int mixed = hash * 0x9E3779B9;
            if ((mixed & (SAMPLE - 1)) != 0) return;
            sampled.increment();
            int slot = (mixed >>> 4) & (SLOTS - 1);
            int v = hash == 0 ? 1 : hash;
            if (evicted[slot] == v) returned.increment();
            else evicted[slot] = v;
        }
    }

    private final ConcurrentHashMap<Class<?>, Stats> byClass = new ConcurrentHashMap<>();

    Hook hook() {
        return new Hook(BASE, "removeEldestEntry", Set.of("removeEldestEntry"), "(Ljava/util/Map$Entry;)Z",
                Hook.EXIT | Hook.SELF | Hook.ARG0 | Hook.RETURNED, FRAMEWORKS) {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                if (self instanceof Map) record((Map<?, ?>) self, Boolean.TRUE.equals(returned), arg0);
            }
        };
    }

    /** One new key in {@code map}; {@code evicted} when its eldest entry goes for it, {@code eldest} that entry. */
    void record(Map<?, ?> map, boolean evicted, Object eldest) {
        Class<?> c = map.getClass();
        Stats s = byClass.get(c);
        if (s == null) s = byClass.computeIfAbsent(c, k -> new Stats(k.getName()));
        s.inserts.increment();
        if (!evicted) return;
        s.evictions.increment();
        int bound = map.size() - 1;  // the new entry is in; the eldest leaves after this returns
        if (bound > s.bound) s.bound = bound;
        Object key = eldest instanceof Map.Entry ? ((Map.Entry<?, ?>) eldest).getKey() : null;
        // The map hashed the key when it went in (a String's hash is kept in it, a record's is recomputed).
        if (key != null) s.evicted(key.hashCode());
        if (s.filler != null) return;
        if (key != null) {
            s.identityKey = comparesByIdentity(key.getClass());
            s.key = key.getClass().getName();
        }
        s.filler = CallSite.outside(c);
    }

    /**
     * Whether instances of {@code k} are equal only to themselves: equals or hashCode is Object's.
     * Enums and classes are canonical (one instance per value), so identity is their value.
     */
    static boolean comparesByIdentity(Class<?> k) {
        if (k.isEnum() || Enum.class.isAssignableFrom(k) || k == Class.class) return false;
        try {
            return k.getMethod("equals", Object.class).getDeclaringClass() == Object.class
                    || k.getMethod("hashCode").getDeclaringClass() == Object.class;
        } catch (NoSuchMethodException | SecurityException e) {
            return false;
        }
    }

    /** Rows of table {@code lru-maps}, most evictions first. */
    List<Map<String, Object>> rows(long requests) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Stats s : byClass.values()) {
            long evictions = s.evictions.sum();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("map", s.map);
            r.put("bound", s.bound < 0 ? null : s.bound);
            r.put("inserts", s.inserts.sum());
            r.put("evictions", evictions);
            r.put("evictionsPerRequest", requests > 0 ? (double) evictions / requests : null);
            CallSite f = s.filler;
            r.put("filler", f == null ? null : f.caller);
            r.put("fillPath", f == null ? null : f.path);
            r.put("key", s.key);
            r.put("keyEquality", s.key == null ? null : s.identityKey ? "identity" : "value");
            r.put("sampledEvictions", s.sampled.sum());
            r.put("returnedKeys", s.returned.sum());
            rows.add(r);
        }
        rows.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("evictions")).reversed());
        return rows;
    }

    boolean isEmpty() {
        return byClass.isEmpty();
    }
}
