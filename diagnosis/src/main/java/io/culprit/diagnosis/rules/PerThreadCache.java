package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Costly work done in a ThreadLocal's initial value, on a service whose container runs each
 * request on a new virtual thread. A per-thread cache ({@code ThreadLocal.withInitial} of an
 * ObjectMapper, a SimpleDateFormat, a MessageDigest, a buffer) written for a pool of platform
 * threads built its object once per worker; on virtual threads it builds it on every request and
 * drops it with the thread. A Spring Boot service outside the lab (session 24) with a per-thread
 * ObjectMapper that registers its modules read as hot-path-classloading with the fix for XML
 * factories.
 */
final class PerThreadCache {
    /** Most of the work's samples under a ThreadLocal's initial value: the cache is the cost. */
    static final double SHARE = 0.5;
    private static final String SET_INITIAL = "java.lang.ThreadLocal.setInitialValue";

    static final String EXPLANATION = "A ThreadLocal cache pays off when a few pooled threads each build their object once"
            + " and reuse it for every request they serve. The container here runs each request on a new virtual thread,"
            + " and a virtual thread's ThreadLocals live only as long as it does: the object is built for the request,"
            + " used once and dropped.";
    static final String FIX = "Drop the per-thread cache: share one instance where the type is thread-safe (ObjectMapper or"
            + " its ObjectReader/ObjectWriter, DateTimeFormatter instead of SimpleDateFormat, a compiled Pattern), keep a"
            + " small bounded pool where it is not (MessageDigest, Cipher, large buffers). With virtual threads, a"
            + " ThreadLocal caches nothing across requests.";

    final double share;
    /** The application frame that builds the cached object (the initial value's supplier). */
    final String initializer;
    /** The application frame whose ThreadLocal.get() found nothing and built it. */
    final String asker;

    private PerThreadCache(double share, String initializer, String asker) {
        this.share = share;
        this.initializer = initializer;
        this.asker = asker;
    }

    /** The cache behind the {@code work} frames' CPU samples, or null: not on virtual threads, no profile, or not mostly. */
    static PerThreadCache of(Evidence ev, Predicate<String> work) {
        if (!ev.onVirtualThreads()) return null;
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty()) return null;
        CpuProfile hit = profile.get().only(st -> firstWork(st, work) >= 0);
        if (hit.samples() == 0) return null;
        CpuProfile cached = hit.only(st -> initialValue(st, work) >= 0);
        double share = (double) cached.samples() / hit.samples();
        if (share < SHARE) return null;
        String initializer = top(cached.sumBy(st -> initializer(st, initialValue(st, work))));
        String asker = top(cached.sumBy(st -> asker(st, initialValue(st, work))));
        return initializer == null ? null : new PerThreadCache(share, initializer, asker);
    }

    /** "; 93 % of it in a ThreadLocal's initial value (…), asked for by …, built anew for every request on its virtual thread". */
    String summary(Numbers n, String ref) {
        return "; " + n.tag(Fmt.pct(share), ref) + " of it runs in a ThreadLocal's initial value (" + initializer + ")"
                + (asker == null ? "" : ", asked for by " + asker) + ", built anew for every request on its virtual thread";
    }

    /** Root first: the first frame the work accepts, or -1. */
    private static int firstWork(String[] st, Predicate<String> work) {
        for (int i = 0; i < st.length; i++) if (work.test(st[i])) return i;
        return -1;
    }

    /** The innermost ThreadLocal.setInitialValue on the way from the root to the work, or -1. */
    private static int initialValue(String[] st, Predicate<String> work) {
        int w = firstWork(st, work);
        int found = -1;
        for (int i = 0; i < w; i++) if (st[i].startsWith(SET_INITIAL)) found = i;
        return found;
    }

    private static String initializer(String[] st, int at) {
        for (int i = at + 1; i < st.length; i++) if (isApplication(st[i])) return Frames.stripLine(st[i]);
        return null;
    }

    private static String asker(String[] st, int at) {
        for (int i = at - 1; i >= 0; i--) if (isApplication(st[i])) return Frames.stripLine(st[i]);
        return null;
    }

    /** Not the JDK's, and not the class the JVM spins for a lambda (its body is the next frame). */
    private static boolean isApplication(String frame) {
        return !Frames.isJdk(frame) && !frame.contains("$$Lambda") && frame.contains(".");
    }

    private static String top(Map<String, Long> counts) {
        counts.remove(null);
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }
}
