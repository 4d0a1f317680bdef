package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Stats;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * A cache that keeps missing: the CPU its loads take, read from the profile under the frame
 * through which a cache runs its loader on a miss (Caffeine's mapping function, Guava's
 * loadSync, Spring's cache interceptor invoking the method). A cache that hits computes next to
 * nothing there after the warm-up; one whose bound is smaller than the keys the requests use, or
 * whose entries expire before they are reused, or whose key differs per request, computes on most
 * requests. A service outside the lab whose Caffeine cache held 200 of 4,000 prices served 12,000
 * requests/s where 30,000 were possible, and read "no root cause found": the loader held 15 % of
 * the samples, below cpu-hotspot's bar, and the cache's own eviction and maintenance 5 % more.
 */
public final class CacheMissesRule implements Rule {
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;
    /** Samples caught evicting: a bounded cache that is full and throwing entries out (a rare event to sample at all). */
    static final long EVICT_SAMPLES = 5;

    /** Frames through which a cache runs the caller's loader on a miss. */
    private static final String[] LOADS = {
        "com.github.benmanes.caffeine.cache.LocalLoadingCache.lambda$newMappingFunction",
        "com.github.benmanes.caffeine.cache.BoundedLocalCache.lambda$doComputeIfAbsent",
        "com.github.benmanes.caffeine.cache.UnboundedLocalCache.lambda$computeIfAbsent",
        "com.github.benmanes.caffeine.cache.LocalAsyncLoadingCache.lambda$newMappingFunction",
        "com.google.common.cache.LocalCache$Segment.loadSync", "com.google.common.cache.LocalCache$LoadingValueReference.loadFuture",
        "org.springframework.cache.interceptor.CacheAspectSupport.invokeOperation",
        "org.ehcache.core.Ehcache$GetAllFunction", "org.ehcache.core.EhcacheBase.get"
    };
    /** A cache throwing entries out to stay within its bound. */
    private static final String[] EVICTIONS = {
        "com.github.benmanes.caffeine.cache.BoundedLocalCache.evict", "com.google.common.cache.LocalCache$Segment.evictEntries"
    };

    /** Caches that never evict or expire: Spring's default simple cache. */
    private static final String[] UNBOUNDED = {"org.springframework.cache.concurrent.ConcurrentMapCache"};
    static final String KEY_FIX = "Make the key the values that identify the result: @Cacheable's default key is the method's"
            + " arguments compared with equals, so an argument without equals and hashCode (a plain class, a mutable"
            + " object), or one carrying a timestamp or a request id, makes a new key per call; give it equals and"
            + " hashCode (a record), or name the key (key = \"#q.region + '/' + #q.currency\"). The cache also grows by"
            + " an entry per call until then: back it by a bounded cache (Caffeine with maximumSize).";

    @Override public String id() { return "cache-misses"; }
    @Override public String title() { return "A cache misses and recomputes on the request path"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<IdentityCacheKeys> keys = IdentityCacheKeys.of(ev);
        if (keys.isPresent()) return identityKeys(ev, keys.get());
        Optional<ThrashingLru> lru = ThrashingLru.of(ev);
        Finding loaders = loaders(ev, lruNote(ev, lru));
        if (lru.isEmpty() || lru.get().cost() < SHARE_WARN || loaders.score() >= lru.get().cost()) return loaders;
        return thrashing(ev, lru.get());
    }

    /** What the hand-made LRU maps did, for a summary that rules them out; empty without table {@code lru-maps}. */
    private static String lruNote(Evidence ev, Optional<ThrashingLru> lru) {
        if (ev.rows("lru-maps").isEmpty()) return "";
        if (lru.isEmpty()) {
            String archive = ThrashingLru.archive(ev);
            if (archive != null) return " " + archive;
            return " The application's LRU maps evicted on fewer than " + Fmt.pct(ThrashingLru.MIN_PER_REQUEST) + " of the requests.";
        }
        ThrashingLru l = lru.get();
        return " The LRU map " + l.map + " evicted on " + Fmt.pct(Math.min(1, l.perRequest)) + " of the requests, but what "
                + Frames.stripLine(l.filler) + " does to fill it costs " + Fmt.pct(l.cost()) + ": too little to matter.";
    }

    /**
     * A cached method keyed by an argument without value equality ({@link IdentityCacheKeys}): it
     * misses on every call, so its cost is the method's own, whatever the cache's size. A Micronaut
     * service's @Cacheable report, keyed by a query object built per request, ran its two aggregate
     * queries on every request and read as a pool too small for them.
     */
    private Finding identityKeys(Evidence ev, IdentityCacheKeys k) {
        Numbers n = new Numbers();
        String ref = "tables/cache-keys#" + k.row;
        double cost = k.cost();
        Severity sev = cost >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        String key = k.key.substring(k.key.lastIndexOf('.') + 1);
        String costText = k.callShare >= (Double.isNaN(k.cpuShare) ? 0 : k.cpuShare)
                ? "the dependency calls it makes take " + n.tag(Fmt.pct(k.callShare), "tables/calls") + " of the requests' time"
                : "it holds " + n.tag(Fmt.pct(k.cpuShare), ev.cpuRef()) + " of the CPU samples";
        String fresh = Double.isFinite(k.newShare) ? ", " + n.tag(Fmt.pct(Math.min(1, k.newShare)), ref) + " of them new objects" : "";
        String method = k.methodName();
        String cls = method.substring(0, method.lastIndexOf('.')), name = method.substring(method.lastIndexOf('.') + 1);
        Finding.Builder b = finding(sev).score(Math.max(cost, 0.2)).evidence("tables/cache-keys").culprit(k.method);
        if (k.library != null) {
            String lib = "caffeine".equals(k.library) ? "Caffeine" : "Guava";
            b.summary("the " + lib + " cache that " + k.method + " reads is keyed by a " + k.key + " (" + n.tag(Fmt.num(k.perRequest), ref)
                            + " a request" + fresh + "), which keeps Object's equals and hashCode: no lookup finds the entry an"
                            + " earlier call stored, so every call misses and runs the loader; " + costText + ".")
                    .explanation(lib + " finds an entry by its key's hashCode and equals. " + key + " keeps Object's, which are the"
                            + " instance's identity, and the caller builds a new one for every lookup: each misses, runs the loader and"
                            + " stores an entry nothing reads again, as if there were no cache, and the dead entries fill the cache"
                            + " until its bound evicts them (or, unbounded, the heap).")
                    .fix("Give " + key + " equals and hashCode over the fields that identify the value (a record has them), or key the"
                            + " cache by those values themselves (a String or a record of them); then check the hit rate ("
                            + ("caffeine".equals(k.library) ? "Caffeine.recordStats() and cache.stats().hitRate()" : "CacheBuilder.recordStats()"
                            + " and cache.stats().hitRate()") + ").")
                    .confirm(ev.confirm("trace " + cls + " " + name + " -n 5") + ": the loader runs under every call");
        } else {
            b.summary("the cache key of " + k.method + " is built from a " + k.key + " (" + n.tag(Fmt.num(k.perRequest), ref)
                            + " a request" + fresh + "), which keeps Object's equals and hashCode: no call makes a key equal to a"
                            + " stored one, so every call misses and runs the method; " + costText + ".")
                    .explanation("An annotation-driven cache (@Cacheable) keys an entry by the method's arguments and finds it again"
                            + " with their equals and hashCode. " + key + " keeps Object's, which are the instance's identity, and"
                            + " the callers build a new one for every call: the cache stores an entry per call that nothing reads"
                            + " again, and the method runs every time, as if it were not cached.")
                    .fix("Give " + key + " equals and hashCode over the fields that identify the result (a record has them), or"
                            + " name the key from those fields (@Cacheable(key = ...)); then check the hit rate in the cache's"
                            + " metrics. " + "Until then the cache also fills with dead entries: bound it.")
                    .confirm(ev.confirm("watch " + cls + " " + name + " -n 5") + ": the method runs on every call");
        }
        return b.explains("pool-size").explains("pool-starvation").explains("slow-calls").explains("chatty-calls")
                .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency").explains("capped-calls")
                .numbers(n.refs())
                .build();
    }

    /**
     * A hand-made LRU map evicting on many requests, with what its misses cost under the method
     * that fills it (see {@link ThrashingLru}). A service outside the lab kept 64 of 400 regions'
     * tax rates in one: 84 % of its requests computed a rate again, and the verdict was cpu-hotspot
     * on the BigDecimal arithmetic, true but not the cause; with 1,024 entries the arithmetic left
     * the profile.
     */
    private Finding thrashing(Evidence ev, ThrashingLru lru) {
        Numbers n = new Numbers();
        String ref = "tables/lru-maps#" + lru.row;
        String filler = Frames.stripLine(lru.filler);
        String cost = lru.byCalls()
                ? "; the calls " + filler + " makes to fill it (" + lru.call + ") take " + n.tag(Fmt.pct(lru.callShare), "tables/calls")
                        + " of the requests' time."
                : "; " + filler + " holds " + n.tag(Fmt.pct(lru.cpuShare), ev.cpuRef()) + " of the CPU samples.";
        double share = lru.cost();
        String mapName = lru.map.substring(lru.map.lastIndexOf('.') + 1);
        String summary = "the LRU map " + lru.map + " keeps " + n.tag(Fmt.num(lru.bound), ref) + " entries and threw one out on "
                + n.tag(Fmt.pct(Math.min(1, lru.perRequest)), ref) + (lru.perRequest > 1 ? " (more than one per request)" : "")
                + " of the requests (" + n.tag(Fmt.num(lru.evictions), ref) + " evictions): each eviction is a value that "
                + filler + ", which fills the map, computes again" + cost;
        Finding.Builder b = finding(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).evidence("tables/lru-maps")
                .culprit(lru.filler);
        if (lru.identityKeys) {
            String key = lru.key.substring(lru.key.lastIndexOf('.') + 1);
            b.summary(summary + " Its keys, " + lru.key + ", keep Object's equals and hashCode: a key made for a lookup"
                            + " never equals the one stored, so every lookup misses whatever the bound.")
                    .explanation("A hash map finds an entry by its key's hashCode and equals. " + key + " keeps Object's,"
                            + " which are the instance's identity: two keys built from the same values are two keys. Each"
                            + " lookup builds its key afresh, misses, computes the value again (" + lru.fillPath + ") and"
                            + " stores it under a key no later lookup can match, and the bound throws out entries nothing can"
                            + " find any more. A bigger bound would only keep more of them.")
                    .fix("Give " + key + " equals and hashCode over the fields that identify a value (a record has them), or"
                            + " key the map by a value that has them (a String of those fields). The bound then only"
                            + " needs to cover the distinct keys in use.");
        } else {
            b.summary(summary)
                    .explanation("A cache that holds the keys the requests use evicts almost nothing once warm. This one, a"
                            + " LinkedHashMap bounded in removeEldestEntry, is smaller than its working set: an entry is thrown"
                            + " out before it is asked for again, so nearly every request misses, computes the value again and"
                            + " evicts another that a later request needs. The cost shows under the method that fills the map"
                            + " (" + lru.fillPath + "), not under any cache frame, and reads as that computation being slow.")
                    .fix("Raise the bound of " + mapName + " above the number of keys in use (it keeps " + lru.bound + "; count the"
                            + " distinct keys the traffic brings), or replace the map with a Caffeine cache (maximumSize,"
                            + " recordStats()) whose hit rate its metrics show; a synchronized LinkedHashMap is also one lock for"
                            + " every request. If the keys really are that many, make the value cheaper to compute or load them in bulk.");
        }
        return b
                .confirm(ev.confirm("monitor -c 5 " + lru.map + " removeEldestEntry") + ": calls per request are the misses")
                .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency")
                .explains("slow-calls").explains("chatty-calls")
                .numbers(n.refs())  // after the summary, which tags them
                .build();
    }

    private Finding loaders(Evidence ev, String lruNote) {
        CpuProfile p = ProfileGate.enough(ev);
        if (p == null) return notAssessed(ProfileGate.missing(ev));
        CpuProfile loads = p.only(st -> Frames.anyStartsWith(st, LOADS));
        Finding.Builder b = finding(Severity.OK).evidence("profiles/cpu.collapsed");
        Map.Entry<String, Long> loader = CpuHotspotRule.top(loads.sumBy(CacheMissesRule::loader));
        if (loader == null) return b.summary("no cache loaded values on the CPU in the profile." + lruNote).build();
        double share = (double) loads.samples() / p.samples();
        long evictions = p.only(st -> Frames.anyStartsWith(st, EVICTIONS)).samples();
        boolean evicting = evictions >= EVICT_SAMPLES;
        double evict = (double) evictions / p.samples();
        Numbers n = new Numbers();
        String ref = "profiles/cpu.collapsed";
        Map.Entry<String, Long> reader = CpuHotspotRule.top(loads.only(st -> loader.getKey().equals(loader(st)))
                .sumBy(st -> Frames.applicationAbove(st, CacheMissesRule::isLoad)));
        String caller = reader == null ? null : reader.getKey();
        String what = "a cache ran its loader " + Frames.stripLine(loader.getKey()) + " on " + n.tag(Fmt.pct(share), ref)
                + " of the CPU samples" + (caller == null ? "" : " (the cache read at " + Frames.stripLine(caller) + ")")
                + (evicting ? ", and evicted entries on " + n.tag(Fmt.pct(evict), ref) + " more" : "");
        // The loader's own dependency calls, run on (nearly) every request: the cache never hits.
        double[] calls = loaderCalls(ev, Frames.stripLine(loader.getKey()));
        // The loader's calls made by its class's other methods (it hands the work to a helper of its own)
        if (calls[1] == 0) calls = loaderClassCalls(ev, Frames.stripLine(loader.getKey()));
        double[] redis = caller == null ? new double[] {0, 0} : redisCache(ev, Frames.stripLine(caller));
        boolean storesEveryRead = redis[0] >= NEVER_PER_REQUEST && redis[1] >= NEVER_PER_REQUEST * redis[0];
        // Not a cache that evicts or sees new keys (those branches below name why it misses).
        boolean never = (calls[1] >= NEVER_PER_REQUEST || storesEveryRead) && !evicting
                && p.only(st -> Frames.anyStartsWith(st, UNBOUNDED)).samples() == 0
                && p.only(st -> Frames.anyStartsWith(st, SPRING_CACHE)).samples() > 0;
        if (never) {
            double weight = Math.max(share, calls[0]);
            String redisNote = !storesEveryRead ? "" : "; it is kept in Redis, whose " + n.tag(Fmt.num(redis[0]), "tables/calls")
                    + " GET and " + n.tag(Fmt.num(redis[1]), "tables/calls") + " SET a request at " + Frames.stripLine(caller)
                    + " say that each read misses and stores a new entry";
            return b.severity(weight >= SHARE_CRITICAL ? Severity.CRITICAL : weight >= SHARE_WARN ? Severity.WARN : Severity.INFO)
                    .score(weight).culprit(loader.getKey())
                    .summary(what + (calls[1] > 0 ? "; its calls run " + n.tag(Fmt.num(calls[1]), "tables/calls") + " time(s) per request, "
                            + n.tag(Fmt.pct(calls[0]), "tables/calls") + " of request time" : "") + redisNote
                            + ": a Spring cache that missed on nearly every request.")
                    .numbers(n.refs())
                    .explanation("@Cacheable asks the cache first and runs the method only on a miss. When the method's own queries"
                            + " run once per request for the same key, the cache keeps nothing: a cache manager that does not cache"
                            + " (spring.cache.type=none, a NoOpCacheManager from a test profile), a cache name it does not know"
                            + " (with dynamic creation off), an expiry of zero, or a key that is never equal twice.")
                    .fix(storesEveryRead ? REDIS_KEY_FIX : "Find why the cache keeps nothing: check spring.cache.type and the CacheManager bean (Spring Boot's"
                            + " /actuator/caches lists the caches it has), the cache's expiry and size settings, and that the key"
                            + " (the method's parameters, or its key expression) has equals and hashCode; then the loader runs once"
                            + " per key until evicted.")
                    .confirm(ev.confirm("trace " + Frames.classAndMethod(loader.getKey()) + " -n 5") + " (it runs on every request)")
                    .explains("slow-calls").explains("chatty-calls").explains("pool-starvation").explains("pool-size")
                    .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency")
                    .build();
        }
        if (share < SHARE_WARN) return b.summary(what + ": too small a share to matter." + lruNote).numbers(n.refs()).build();
        // Spring's default cache keeps every entry for ever: a miss there is a key never seen before.
        boolean unbounded = !evicting && p.only(st -> Frames.anyStartsWith(st, UNBOUNDED)).samples() > 0;
        // The cache built where it is read: each call starts with an empty one (session 37, 509 requests/s against 2,356).
        String reading = caller == null ? null : Frames.stripLine(caller);
        boolean perCall = reading != null && !evicting && p.only(st -> builtUnder(st, reading)).samples() > 0;
        if (perCall) {
            return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).numbers(n.refs())
                    .culprit(caller)
                    .summary(what + ": the cache misses on a large share of the requests, and it is built anew in "
                            + reading + " (a cache builder's build() runs there): each call starts with an empty cache.")
                    .explanation("A cache that lives only as long as one call never hits twice for the same key across"
                            + " requests: every request pays the loader for every key, and the cache's construction on top.")
                    .fix("Build the cache once (a final field of a singleton, a static final, or a Spring cache bean with"
                            + " @Cacheable) and read it per call; size it to the keys in use and measure its hit rate"
                            + " (recordStats()).")
                    .confirm(ev.confirm("trace " + Frames.classAndMethod(reading) + " -n 3"))
                    .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency").explains("chatty-calls")
                    .build();
        }
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).numbers(n.refs())
                .culprit(caller == null ? loader.getKey() : caller)
                .summary(what + ": the cache misses" + (evicting
                        ? ", and it is full: it throws out entries the requests ask for again."
                        : unbounded ? " on a large share of the requests, yet it is Spring's ConcurrentMapCache, which neither"
                        + " bounds nor expires entries: the key differs on every call." : " on a large share of the requests."))
                .explanation("A cache that hits computes almost nothing once warm; this one recomputes on the request path,"
                        + " so requests pay the loader's cost and the cache's own bookkeeping on top. The usual reasons: a"
                        + " bound (maximumSize, maximumWeight) smaller than the keys the traffic uses, entries that expire"
                        + " before they are asked for again, or a key that differs on every request (a timestamp, a request"
                        + " id, a mutable object).")
                .fix(unbounded ? KEY_FIX : "Size the cache to its working set (maximumSize or maximumWeight at least the number of keys in"
                        + " use), lengthen expireAfterWrite if entries expire before reuse, and check the key; measure the hit"
                        + " rate (Caffeine's recordStats(), Spring Boot's cache metrics) before and after. If the keys"
                        + " really are that many, make the load cheaper or load in bulk.")
                .confirm(ev.confirm("profiler start --event cpu") + " then the flame graph under " + Frames.shortName(loader.getKey()))
                .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency")
                .build();
    }

    static final String REDIS_KEY_FIX = "A Redis cache that stores on every read never finds what it stored: the key differs"
            + " per request, or the entry is gone before the next read. Spring's RedisCache makes the Redis key from the key"
            + " object's toString() (with the default, the method's parameters): a parameter whose toString carries a request"
            + " id, a timestamp or Object's identity hash makes a new key per call, and fills Redis with entries read once."
            + " Name the key from the values that identify the result (key = \"#q.region + ':' + #q.currency\"), or give the"
            + " key class a toString of those values only; check the cache's time-to-live (spring.cache.redis.time-to-live)."
            + " Redis's own hit rate (INFO stats: keyspace_hits against keyspace_misses) confirms it.";

    /**
     * {GETs, SETs} per request of the Redis calls made at {@code caller}, the code that read the
     * cache: a Spring cache kept in Redis (RedisCache) asks GET at each read and SET after each miss,
     * from the same frame (the proxy's frames are no call site), so SETs as many as GETs are misses on
     * every read. {0, 0} without them.
     */
    static double[] redisCache(Evidence ev, String caller) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return new double[] {0, 0};
        Table t = calls.get();
        double gets = 0, sets = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!"redis".equals(t.text(i, "kind")) || !Frames.stripLine(Evidence.text(t, i, "caller")).equals(caller)) continue;
            double per = Stats.finite(t.number(i, "perRequest"));
            String cmd = Evidence.text(t, i, "target");
            if (cmd.equals("GET")) gets += per;
            else if (cmd.equals("SET") || cmd.equals("SETEX") || cmd.equals("PSETEX")) sets += per;
        }
        return new double[] {gets, sets};
    }

    /** A loader whose calls run this often per request misses on every request. */
    static final double NEVER_PER_REQUEST = 0.9;
    private static final String[] SPRING_CACHE = {"org.springframework.cache.interceptor.CacheAspectSupport."};

    /** {share of request time, most per request} of the {@code calls} rows made under {@code method}. */
    static double[] loaderCalls(Evidence ev, String method) {
        return calls(ev, (t, i) -> SlowCallsRule.onPath(t, i, method));
    }

    /** As above, for the rows whose caller is a method of {@code method}'s class (a helper the loader hands its work to). */
    static double[] loaderClassCalls(Evidence ev, String method) {
        int dot = method.lastIndexOf('.');
        String type = dot > 0 ? method.substring(0, dot + 1) : method;
        return calls(ev, (t, i) -> Frames.stripLine(Evidence.text(t, i, "caller")).startsWith(type));
    }

    private static double[] calls(Evidence ev, BiPredicate<Table, Integer> made) {
        double share = 0, perRequest = 0;
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return new double[] {0, 0};
        Table t = calls.get();
        for (int i = 0; i < t.rows().size(); i++) {
            if (!made.test(t, i)) continue;
            if (Double.isFinite(t.number(i, "shareOfRequestTime"))) share += t.number(i, "shareOfRequestTime");
            if (Double.isFinite(t.number(i, "perRequest"))) perRequest = Math.max(perRequest, t.number(i, "perRequest"));
        }
        return new double[] {Math.min(1, share), perRequest};
    }

    /** Cache builders: their build() makes a new, empty cache. */
    private static final String[] BUILDS = {"com.github.benmanes.caffeine.cache.Caffeine.build",
        "com.google.common.cache.CacheBuilder.build", "org.cache2k.Cache2kBuilder.build"};

    /** Whether the stack (root first) has a cache builder's build() called straight from {@code method}. */
    private static boolean builtUnder(String[] st, String method) {
        for (int i = 0; i + 1 < st.length; i++) {
            if (Frames.stripLine(st[i]).equals(method) && Frames.startsWithAny(Frames.stripLine(st[i + 1]), BUILDS)) return true;
        }
        return false;
    }

    /** The first application frame below a cache's load frame (root first): the loader; null when none. */
    static String loader(String[] st) {
        String f = Frames.firstBelow(st, CacheMissesRule::isLoad, g -> Frames.isApplication(g) && !isLoad(g));
        return f == null ? null : Frames.stripLine(f);
    }

    private static boolean isLoad(String frame) {
        return Frames.startsWithAny(frame, LOADS);
    }
}
