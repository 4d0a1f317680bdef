package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Independent remote calls made one after another: a request that asks several targets of one
 * shape (a quote from each carrier, a price from each supplier) once each, and whose calls' times
 * add up to its own. Made concurrently, they would add up to more than the request (each overlaps
 * the others), so a sum near the request's time says they ran in turn. No call is slow and none
 * repeats, so neither slow-calls nor chatty-calls sees it. A blind WebFlux service (session 41)
 * asked ten carriers with {@code concatMap}: 320 ms per request, the sum of ten 25–39 ms calls,
 * where {@code flatMap} took 63 ms; culprit found no root cause.
 */
public final class SequentialCallsRule implements Rule {
    /** Three or more targets of one shape: a fan-out, not a call and its follow-up. */
    static final int MIN_TARGETS = 3;
    /** Each asked about once per request. */
    static final double ONCE_MIN = 0.5, ONCE_MAX = 2;
    /** Their times add up to at least this share of the request's, and at most {@link #SUM_MAX}: in turn. */
    static final double SUM_WARN = 0.3, SUM_CRITICAL = 0.6, SUM_MAX = 1.3;
    /** Remote calls: HTTP's and gRPC's (whose targets are a service's methods, {@code fleet.Pricing/Quote}). */
    static final Set<String> REMOTE_KINDS = Set.of("http", "grpc");

    @Override public String id() { return "sequential-calls"; }
    @Override public String title() { return "Independent remote calls made one after another"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        Map<String, List<Integer>> families = new LinkedHashMap<>();
        for (int i = 0; i < t.rows().size(); i++) {
            if (!REMOTE_KINDS.contains(t.text(i, "kind")) || SlowCallsRule.background(t, i)) continue;
            double per = ev.perRequest(t, i);
            if (!(per >= ONCE_MIN && per <= ONCE_MAX)) continue;
            for (String key : shapes(t.text(i, "target"))) families.computeIfAbsent(key, k -> new ArrayList<>()).add(i);
        }
        String best = null;
        for (Map.Entry<String, List<Integer>> e : families.entrySet()) {
            if (e.getValue().size() >= MIN_TARGETS && (best == null || e.getValue().size() > families.get(best).size())) best = e.getKey();
        }
        Numbers n = new Numbers();
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (best == null) {
            return b.summary("no request called " + MIN_TARGETS + " or more HTTP or gRPC targets of one shape once each.").build();
        }
        List<Integer> rows = families.get(best);
        double sum = 0;
        for (int i : rows) sum += finite(t.number(i, "shareOfRequestTime"));
        String targets = n.tag(String.valueOf(rows.size()), "tables/calls") + " targets of " + SlowCallsRule.quote(best);
        if (sum > SUM_MAX) {
            return b.summary("requests call " + targets + " once each, and their times add up to " + n.tag(Fmt.pct(sum), "tables/calls")
                    + " of request time: they already run concurrently.").numbers(n.refs()).build();
        }
        if (sum < SUM_WARN) {
            return b.summary("requests call " + targets + " once each, " + n.tag(Fmt.pct(sum), "tables/calls")
                    + " of request time together: too little to matter.").numbers(n.refs()).build();
        }
        String maker = maker(t, rows);
        return b.severity(sum >= SUM_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(sum * 0.9).culprit(maker != null ? maker : best)
                .summary("requests call " + targets + " once each (" + n.tag(Fmt.ms(meanOf(t, rows)), "tables/calls") + " a call), and their"
                        + " times add up to " + n.tag(Fmt.pct(sum), "tables/calls") + " of request time: the calls run one after another,"
                        + " and the request waits for their sum, not for the slowest"
                        + (maker != null ? "; " + maker + " makes them, at lines " + lines(t, rows, maker) : "") + ".")
                .numbers(n.refs())
                .explanation("Calls made concurrently overlap: their times add up to more than the request that waits for them."
                        + " Here they add up to the request's own time, so each starts when the one before it has answered. Calls"
                        + " that do not need each other's answers need not wait for each other.")
                .fix("If the calls do not depend on each other, make them concurrently: in Reactor flatMap with a concurrency"
                        + " (not concatMap), Mono.zip or Flux.merge; with a blocking client, CompletableFuture.supplyAsync on an"
                        + " executor of its own and allOf; with gRPC, the future stub for each and Futures.allAsList (or the async stub's"
                        + " observers), not the blocking stub one call at a time; with Kotlin coroutines, coroutineScope { targets.map { async { call(it) } }.awaitAll() };"
                        + " or ask for all of them in one call (a bulk endpoint).")
                .confirm(ev.confirm("calls"))
                .explains("slow-calls").explains("tail-latency").explains("pool-size")
                .build();
    }

    /**
     * The target's shapes: its method, host and path with one segment at a time made a wildcard
     * ({@code POST http://h:1/carriers/{*}/quote}), so targets that differ in one segment share one.
     */
    static List<String> shapes(String target) {
        List<String> out = new ArrayList<>();
        if (target == null) return out;
        if (grpcMethod(target)) {
            // A service's methods (fleet.Eta/{*}), or one method name on several services ({*}/Quote).
            int slash = target.indexOf('/');
            out.add(target.substring(0, slash) + "/{*}");
            out.add("{*}" + target.substring(slash));
            return out;
        }
        int sp = target.indexOf(' '), scheme = target.indexOf("://");
        if (sp < 0 || scheme < 0) return out;
        int pathAt = target.indexOf('/', scheme + 3);
        if (pathAt < 0) return out;
        String head = target.substring(0, pathAt);
        String[] segments = target.substring(pathAt + 1).split("/", -1);
        for (int s = 0; s < segments.length; s++) {
            StringBuilder key = new StringBuilder(head);
            for (int j = 0; j < segments.length; j++) key.append('/').append(j == s ? "{*}" : segments[j]);
            out.add(key.toString());
        }
        return out;
    }

    /** A gRPC call's target: a full method name, {@code package.Service/Method}, one slash and no scheme or verb. */
    static boolean grpcMethod(String target) {
        int slash = target.indexOf('/');
        return slash > 0 && slash == target.lastIndexOf('/') && slash < target.length() - 1 && target.indexOf(' ') < 0;
    }

    /**
     * The method that makes the calls in turn: where the rows' call paths ({@link Evidence#callFrames},
     * the caller first) part, if every row is there in one method at its own line (a shared wrapper
     * such as {@code PartnerClient.fetch} above it is the same frame in each). Null when the paths
     * are unknown or part elsewhere: the target's shape is then the culprit.
     */
    static String maker(Table t, List<Integer> rows) {
        List<String[]> paths = new ArrayList<>();
        for (int i : rows) {
            List<String> frames = Evidence.callFrames(t, i);
            if (frames.isEmpty()) return null;
            paths.add(frames.toArray(new String[0]));
        }
        for (int depth = 0; ; depth++) {
            Set<String> frames = new HashSet<>(), methods = new HashSet<>();
            for (String[] p : paths) {
                if (depth >= p.length) return null;
                frames.add(p[depth]);
                methods.add(Frames.stripLine(p[depth]));
            }
            if (frames.size() == 1) continue;
            return methods.size() == 1 ? methods.iterator().next() : null;
        }
    }

    /** The lines {@code maker} makes the rows' calls at, in order ("86, 87, 88 and 89"). */
    private static String lines(Table t, List<Integer> rows, String maker) {
        TreeSet<Integer> out = new TreeSet<>();
        for (int i : rows) {
            for (String f : Evidence.callFrames(t, i)) {
                if (!Frames.stripLine(f).equals(maker) || f.length() == maker.length()) continue;
                try {
                    out.add(Integer.parseInt(f.substring(maker.length() + 1)));
                } catch (NumberFormatException e) {
                    // a frame without a line number: not listed
                }
                break;
            }
        }
        List<String> l = new ArrayList<>();
        for (int line : out) l.add(String.valueOf(line));
        return l.size() <= 1 ? String.join("", l) : String.join(", ", l.subList(0, l.size() - 1)) + " and " + l.get(l.size() - 1);
    }

    private static double meanOf(Table t, List<Integer> rows) {
        double ms = 0, count = 0;
        for (int i : rows) {
            ms += finite(t.number(i, "totalMs"));
            count += finite(t.number(i, "count"));
        }
        return count > 0 ? ms / count : Double.NaN;
    }
}
