package io.culprit.agent.probe;

import io.culprit.model.Engines;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * Constructions of types that are costly to build and meant to be built once (CASES.md seed 3):
 * a Jackson ObjectMapper, Spring Boot's HttpMessageConverters, a RestTemplate, a gRPC channel, and engines that
 * cache per instance what they parse (a Thymeleaf TemplateEngine, a ModelMapper). Chained
 * constructors ({@code this(...)}, {@code super(...)}) count once: only the outermost
 * construction on a thread is recorded. The caller is the first frame outside the type and
 * the JDK, found with a stack walk, which is affordable because these constructions are rare
 * in a healthy service and are the finding when they are not.
 */
final class ConstructionProbe {

    /** The types watched: the ones whose constructors are dear, then the engines ({@link Engines}), dear to use cold. */
    static final String[] EXPENSIVE = Stream.concat(Stream.of(
            "com.fasterxml.jackson.databind.ObjectMapper",
            "tools.jackson.databind.ObjectMapper",  // Jackson 3, Spring Boot 4's
            "org.springframework.boot.autoconfigure.http.HttpMessageConverters",
            "org.springframework.boot.http.converter.autoconfigure.HttpMessageConverters",  // Spring Boot 4's
            "org.springframework.web.client.RestTemplate",
            // a gRPC channel: cheap to build, dear to connect (a TCP connect, a TLS handshake, HTTP/2's set-up)
            "io.grpc.internal.ManagedChannelImpl"),
            Engines.ALL.stream().map(e -> e.type)).toArray(String[]::new);
    /** An outermost construction older than this never returned (its constructor threw). */
    private static final long STALE_NS = 1_000_000_000L;
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final String SELF = ConstructionProbe.class.getName();

    /** Per type and caller. */
    static final class Built {
        final String type;
        final String caller;
        final LongAdder count = new LongAdder();
        final LongAdder ns = new LongAdder();

        Built(String type, String caller) {
            this.type = type;
            this.caller = caller;
        }
    }

    private final ThreadLocal<long[]> outermost = ThreadLocal.withInitial(() -> new long[1]);
    final ConcurrentHashMap<String, Built> built = new ConcurrentHashMap<>();

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        for (String type : EXPENSIVE) {
            h.add(new Hook(type, "<init>", "(", Hook.TIMED) {
                @Override
                public long enter(int id) {
                    long now = System.nanoTime();
                    long[] slot = outermost.get();
                    if (slot[0] == 0 || now - slot[0] > STALE_NS) slot[0] = now;
                    return now;
                }

                @Override
                public void exit(int id, long start, Throwable thrown) {
                    long[] slot = outermost.get();
                    if (slot[0] != start) return;  // an inner, chained constructor
                    slot[0] = 0;
                    String caller = caller(type);
                    Built b = built.computeIfAbsent(type + ' ' + caller, k -> new Built(type, caller));
                    b.count.increment();
                    b.ns.add(System.nanoTime() - start);
                }
            });
        }
        return h;
    }

    /**
     * Who builds it: the first frame outside the type's library and the JDK, and past the helpers of
     * frameworks and of the validation and XML APIs when an application frame calls them
     * (Dropwizard's {@code Validators.newValidator()}, {@code jakarta.validation.Validation}, Spring's
     * builders): the code to change is the application's call, not the helper's constructor call.
     */
    private static String caller(String type) {
        String library = library(type);
        return WALKER.walk(frames -> {
            StackWalker.StackFrame outside = null;
            for (java.util.Iterator<StackWalker.StackFrame> it = frames.iterator(); it.hasNext(); ) {
                StackWalker.StackFrame f = it.next();
                String c = f.getClassName();
                if (c.startsWith(type) || c.startsWith(library) || c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.")
                        || c.startsWith("io.culprit.bootstrap.") || c.startsWith("io.culprit.agent.instrument.")
                        || c.equals(SELF) || c.startsWith(SELF + "$")) continue;
                if (outside == null) outside = f;
                if (!helper(c)) return name(f);
            }
            return outside == null ? "(unknown)" : name(outside);
        });
    }

    private static final String[] HELPERS = {"javax.", "jakarta.", "io.dropwizard.", "org.glassfish.", "io.micronaut.", "io.quarkus.",
        "io.helidon.", "io.vertx.", "io.grpc."};

    private static boolean helper(String className) {
        for (String h : HELPERS) if (className.startsWith(h)) return true;
        for (String h : LruMaps.FRAMEWORKS) if (className.startsWith(h)) return true;
        return false;
    }

    private static String name(StackWalker.StackFrame f) {
        return f.getClassName() + "." + f.getMethodName() + ":" + f.getLineNumber();
    }

    /**
     * The type's library, as the first three segments of its package ({@code com.fasterxml.jackson.}):
     * its own subclasses and builders are not the caller (a JsonMapper's builder makes an
     * ObjectMapper through JsonMapper's constructor).
     */
    static String library(String type) {
        int dot = type.lastIndexOf('.');
        if (dot < 0) return type;
        String[] segments = type.substring(0, dot).split("\\.");
        return String.join(".", java.util.Arrays.copyOf(segments, Math.min(3, segments.length))) + ".";
    }

    /** Rows of table {@code construction}, most built first. */
    List<Map<String, Object>> rows(long requests) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Built b : built.values()) {
            long n = b.count.sum();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("type", b.type);
            r.put("count", n);
            r.put("perRequest", requests > 0 ? (double) n / requests : null);
            r.put("caller", b.caller);
            r.put("meanMs", b.ns.sum() / 1e6 / n);
            rows.add(r);
        }
        rows.sort(Comparator.comparingLong((Map<String, Object> r) -> (Long) r.get("count")).reversed());
        return rows;
    }
}
