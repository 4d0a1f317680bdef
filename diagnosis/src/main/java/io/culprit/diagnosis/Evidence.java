package io.culprit.diagnosis;

import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A read-only view of one case file for rules: cached series and tables, column statistics,
 * window alignment across series, correlation, and per-request normalisation. It never throws
 * for absent evidence: lookups are Optional or NaN, so rules can answer NOT_ASSESSED.
 */
public final class Evidence {
    private final CaseFile caseFile;
    private final CaseInfo info;
    private final Map<String, Optional<Series>> series = new HashMap<>();
    private final Map<String, Optional<Table>> tables = new HashMap<>();
    private Optional<CpuProfile> cpuProfile;

    public Evidence(CaseFile caseFile) {
        this.caseFile = caseFile;
        this.info = caseFile.info();
    }

    public CaseFile caseFile() { return caseFile; }
    public CaseInfo info() { return info; }

    /** A series; {@code requests} falls back to the windows of {@code load.json} when not recorded as a series. */
    public Optional<Series> series(String name) {
        return series.computeIfAbsent(name, n -> {
            Optional<Series> s = caseFile.series(n);
            return s.isEmpty() && n.equals("requests") ? LoadJson.requests(caseFile.dir()) : s;
        });
    }

    public Optional<Table> table(String name) {
        Optional<Table> t = tables.get(name);
        if (t == null) {
            // Not computeIfAbsent: the rescale reads the requests series, and must not re-enter this map's update.
            t = caseFile.table(name).map(this::perLoadRequest);
            tables.put(name, t);
        }
        return t;
    }

    /** The server took this many times the requests culprit's load sent, and more than {@link #EXTRA_REQUESTS}, before a table is rescaled. */
    static final double INNER_REQUESTS = 1.2;
    static final double EXTRA_REQUESTS = 10;

    /**
     * A table the probes wrote per request counts over every request the server took. When
     * culprit's load drove the run and the server took many more than it sent, the service called
     * its own endpoints (a remote stand-in in process, a gateway route, an internal API): those
     * inner requests are part of the load's, and what one request costs is the count over the
     * load's requests, its share of time over their time. A blind service (session 41) made 20
     * sequential calls to its own endpoint per request: read per server request, 0.95 calls per
     * request and 52 % of request time, and no root cause; per load request, 20 and all of it.
     */
    /**
     * ... and a table whose probes saw no request at all (a server culprit has no request probe for: a
     * blind service on Jersey's Grizzly server, session 46, read "share of request time unknown" on
     * an insert made 40 times a request) counts over the load's requests, when culprit's load drove
     * the run: its rows get the per-request figures the probes could not give them. A background
     * row (a scheduled task's calls) stays without them.
     */
    private Table perLoadRequest(Table t) {
        double probed = meta(t, "requests");
        double sent = LoadJson.completed(caseFile.dir());
        if (!(sent > 0)) return perOuterRequest(t, probed);
        boolean unseen = t.meta().containsKey("requests") && probed == 0;
        if (!(probed > INNER_REQUESTS * sent + EXTRA_REQUESTS || unseen)) return t;
        return rescaled(t, sent, sent * meanLatencyMs(), unseen, probed);
    }

    /**
     * Without culprit's load (an observed run), the same for the requests the service made to itself:
     * a route whose path is one of its own call targets (gRPC's method, an HTTP call's path) is a
     * request from inside, and the service's own requests are the others. A blind gRPC service
     * (session 48) served its partner's stand-in in process: half its requests were its own calls,
     * so a channel built for every request read 0.5 per request, under repeated-construction's 1.
     */
    private Table perOuterRequest(Table t, double probed) {
        double[] outer = outerRequests();
        if (outer == null || !(probed > INNER_REQUESTS * outer[0] + EXTRA_REQUESTS)) return t;
        return rescaled(t, outer[0], outer[1], false, probed);
    }

    private double[] outer;
    private boolean outerRead;

    /** {requests, their time in ms} of the routes no call of the service's own reached; null when all are outer. */
    private double[] outerRequests() {
        if (outerRead) return outer;
        outerRead = true;
        Optional<Table> routes = caseFile.table("routes"), calls = caseFile.table("calls");
        if (routes.isEmpty() || calls.isEmpty()) return null;
        java.util.Set<String> called = new java.util.HashSet<>();
        Table c = calls.get();
        for (int i = 0; i < c.rows().size(); i++) {
            String kind = c.text(i, "kind"), target = Evidence.text(c, i, "target");
            if ("grpc".equals(kind)) called.add("gRPC " + target);
            if ("http".equals(kind)) called.add(foldRoute(httpRoute(target)));
        }
        Table r = routes.get();
        double n = 0, inner = 0, ms = 0;
        for (int i = 0; i < r.rows().size(); i++) {
            double count = r.number(i, "count");
            if (!(count > 0)) continue;
            if (called.contains(foldRoute(Evidence.text(r, i, "route")))) {
                inner += count;
                continue;
            }
            double mean = Double.isFinite(r.number(i, "meanMs")) ? r.number(i, "meanMs")
                    : Double.isFinite(r.number(i, "containerMs")) ? r.number(i, "containerMs") : r.number(i, "p50Ms");
            n += count;
            ms += count * (Double.isFinite(mean) ? mean : 0);
        }
        if (inner == 0 || n == 0 || ms == 0) return null;
        outer = new double[] {n, ms};
        return outer;
    }

    /** {@code GET http://host:8080/a/b?x=1} → {@code GET /a/b}: an HTTP call's target as a route of the service it calls. */
    static String httpRoute(String target) {
        int sp = target.indexOf(' '), scheme = target.indexOf("://");
        if (sp < 0 || scheme < 0) return target;
        int path = target.indexOf('/', scheme + 3);
        String p = path < 0 ? "/" : target.substring(path);
        int q = p.indexOf('?');
        return target.substring(0, sp) + " " + (q < 0 ? p : p.substring(0, q));
    }

    /** A route with its variables, however named ({id}, {n}, {*}), as one mark. */
    static String foldRoute(String route) {
        return route.replaceAll("\\{[^/}]*\\}", "{}");
    }

    /** {@code t} with its per-request figures over {@code requests} requests taking {@code timeMs} in all. */
    private Table rescaled(Table t, double sent, double timeMs, boolean unseen, double probed) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map<String, Object> r : t.rows()) {
            Map<String, Object> out = new LinkedHashMap<>(r);
            boolean fill = unseen && !Boolean.TRUE.equals(r.get("background"));
            if ((r.get("perRequest") instanceof Number || fill) && r.get("count") instanceof Number) {
                out.put("perRequest", ((Number) r.get("count")).doubleValue() / sent);
            }
            if ((r.get("shareOfRequestTime") instanceof Number || fill) && r.get("totalMs") instanceof Number && timeMs > 0) {
                out.put("shareOfRequestTime", Math.min(1.0, ((Number) r.get("totalMs")).doubleValue() / timeMs));
            }
            rows.add(out);
        }
        Map<String, Object> meta = new LinkedHashMap<>(t.meta());
        meta.put("requests", sent);
        meta.put("serverRequests", probed);
        return new Table(t.name(), t.columns(), rows, meta);
    }

    /**
     * Share of CPU samples with a frame accepted by {@code frame} anywhere on the stack: from the
     * collapsed cpu profile when the case has one, else the largest total share among the
     * {@code cpu-hotspots} rows (which list only the hottest methods); NaN with neither, and NaN
     * when the table has fewer than {@link #MIN_HOTSPOT_SAMPLES} samples behind it.
     */
    public double cpuShare(Predicate<String> frame) {
        if (cpuProfile().isPresent()) return cpuProfile.get().share(frame);
        Optional<Table> hs = rows("cpu-hotspots");
        if (hs.isEmpty() || hotspotSamples() < MIN_HOTSPOT_SAMPLES) return Double.NaN;
        double best = 0;
        Table t = hs.get();
        for (int i = 0; i < t.rows().size(); i++) {
            String f = t.text(i, "frame");
            if (f != null && frame.test(f) && t.number(i, "totalShare") > best) best = t.number(i, "totalShare");
        }
        return best;
    }

    /**
     * JFR's execution samples (the {@code cpu-hotspots} table) come every 20 ms and only from
     * threads running Java at that instant: a lightly loaded service gives a handful, and one
     * sample in a serializer read as 100 % of CPU (idle-resource-scan in CI). Fewer than this
     * carry no share.
     */
    public static final long MIN_HOTSPOT_SAMPLES = 20;

    /** The samples behind the {@code cpu-hotspots} table; MAX_VALUE when it does not say, 0 without the table. */
    public long hotspotSamples() {
        Optional<Table> hs = table("cpu-hotspots");
        if (hs.isEmpty()) return 0;
        Object n = hs.get().meta().get("samples");
        return n instanceof Number ? ((Number) n).longValue() : Long.MAX_VALUE;
    }

    /** The application frame that calls into the accepted frames most (see {@link CpuProfile#topCaller}); null without a profile. */
    public String cpuCaller(Predicate<String> frame) {
        return cpuProfile().map(p -> p.topCaller(frame)).orElse(null);
    }

    /** The case's collapsed cpu profile, when it has one with samples. */
    public Optional<CpuProfile> cpuProfileIfAny() {
        return cpuProfile();
    }

    /** The ref a {@link #cpuShare} figure comes from: the cpu profile when the case has one, else the hotspots table. */
    /** Where a requests' figure comes from: its column of their series, or the load's windows when it was not recorded. */
    public String requestsRef(String column) {
        return caseFile.series("requests").isPresent() && has("requests", column) ? "series/requests#" + column : "load.json";
    }

    public String cpuRef() {
        return hasCpuProfile() ? "profiles/cpu.collapsed" : "tables/cpu-hotspots";
    }

    /** True when the case has a collapsed cpu profile with samples (shares are measured, not estimated). */
    public boolean hasCpuProfile() {
        return cpuProfile().isPresent();
    }

    private Optional<CpuProfile> cpuProfile() {
        if (cpuProfile == null) cpuProfile = CpuProfile.read(caseFile.profile("cpu.collapsed"));
        return cpuProfile;
    }

    /** A table that exists and has rows. */
    public Optional<Table> rows(String name) {
        return table(name).filter(t -> !t.isEmpty());
    }

    public Optional<double[]> column(String seriesName, String column) {
        return series(seriesName).flatMap(s -> s.column(column))
                .filter(c -> java.util.Arrays.stream(c).anyMatch(Double::isFinite));
    }

    public boolean has(String seriesName, String column) {
        return column(seriesName, column).isPresent();
    }

    public Optional<ColumnStats> stats(String seriesName, String column) {
        return column(seriesName, column).map(ColumnStats::new);
    }

    /**
     * Pairs of values of two columns, possibly from series with different windows, matched by
     * time: each window of {@code a} is paired with the window of {@code b} that contains its
     * start. Windows where either value is NaN are dropped.
     */
    public double[][] aligned(String seriesA, String colA, String seriesB, String colB) {
        Optional<Series> sa = series(seriesA);
        Optional<Series> sb = series(seriesB);
        if (sa.isEmpty() || sb.isEmpty()) return new double[0][];
        Optional<double[]> a = sa.get().column(colA);
        Optional<double[]> b = sb.get().column(colB);
        if (a.isEmpty() || b.isEmpty()) return new double[0][];
        List<Long> ta = sa.get().t();
        List<Long> tb = sb.get().t();
        long wb = Math.max(1, sb.get().intervalMs());
        List<double[]> out = new ArrayList<>();
        int j = 0;
        for (int i = 0; i < ta.size(); i++) {
            long t = ta.get(i);
            while (j + 1 < tb.size() && tb.get(j + 1) <= t) j++;
            if (tb.isEmpty() || t < tb.get(j) || t >= tb.get(j) + wb) continue;
            double x = a.get()[i];
            double y = b.get()[j];
            if (Double.isFinite(x) && Double.isFinite(y)) out.add(new double[] {x, y});
        }
        return out.toArray(new double[0][]);
    }

    /** Pearson correlation of two aligned columns; NaN with fewer than 3 windows or no variance. */
    public double correlation(String seriesA, String colA, String seriesB, String colB) {
        return Stats.pearson(aligned(seriesA, colA, seriesB, colB));
    }

    /** Seconds observed: the case's time range, else the longest series, else a table's meta. */
    public double observedSeconds() {
        double d = info.durationSeconds();
        if (d > 0) return d;
        double best = Double.NaN;
        for (String n : caseFile.seriesNames()) {
            Series s = series(n).orElse(null);
            if (s != null && s.size() > 0) {
                double secs = s.size() * s.intervalMs() / 1000.0;
                if (!(best >= secs)) best = secs;
            }
        }
        if (Double.isFinite(best)) return best;
        for (String n : caseFile.tableNames()) {
            double m = meta(table(n).orElse(null), "seconds");
            if (Double.isFinite(m)) return m;
        }
        return Double.NaN;
    }

    /** Requests completed while observing: from the requests series, else any table's meta. */
    public double requestCount() {
        Optional<Series> req = series("requests");
        Optional<double[]> rps = req.flatMap(s -> s.column("rps"));
        if (rps.isPresent()) {
            double sum = 0;
            for (double v : rps.get()) if (Double.isFinite(v)) sum += v * req.get().intervalMs() / 1000.0;
            // rps is rounded per window, so the product is not whole; a count of requests is.
            if (sum > 0) return Math.rint(sum);
        }
        for (String n : caseFile.tableNames()) {
            double m = meta(table(n).orElse(null), "requests");
            if (m > 0) return m;
        }
        return Double.NaN;
    }

    /** Mean client-observed latency in ms, weighted by rps; p50 stands in when no mean is recorded. */
    public double meanLatencyMs() {
        String col = has("requests", "meanMs") ? "meanMs" : "p50Ms";
        double[][] pairs = aligned("requests", "rps", "requests", col);
        double w = 0, s = 0;
        for (double[] p : pairs) { w += p[0]; s += p[0] * p[1]; }
        return w > 0 ? s / w : Double.NaN;
    }

    /** Total time spent in requests (ms), the denominator of "share of request time". */
    public double requestTimeMs() {
        return requestCount() * meanLatencyMs();
    }

    /**
     * The database the service's statements went to: the product its driver reported for the
     * statement with the most time (calls#database), else the driver whose frames a blocked
     * statement's stack shows (db-waits), else {@link Database#UNKNOWN}.
     */
    public Database database() {
        Optional<Table> calls = rows("calls");
        if (calls.isPresent()) {
            Table t = calls.get();
            int top = -1;
            for (int i = 0; i < t.rows().size(); i++) {
                if (!"sql".equals(t.text(i, "kind")) || text(t, i, "database").isEmpty()) continue;
                if (top < 0 || t.number(i, "totalMs") > t.number(top, "totalMs")) top = i;
            }
            if (top >= 0) return Database.ofProduct(t.text(top, "database"));
        }
        Optional<Table> waits = rows("db-waits");
        if (waits.isPresent()) {
            Table t = waits.get();
            for (int i = 0; i < t.rows().size(); i++) {
                List<String> frames = new ArrayList<>(stack(t, i, "stack"));
                frames.add(0, text(t, i, "lockFrame"));
                for (String frame : frames) if (Database.ofFrame(frame) != Database.UNKNOWN) return Database.ofFrame(frame);
            }
        }
        return Database.UNKNOWN;
    }

    /**
     * Whether the agent saw the servlet container start requests on virtual threads (series
     * pools#containerVirtual): no worker pool bounds the requests in flight, and a thread is made
     * per request, so per-thread caches hold nothing from one request to the next.
     */
    public boolean onVirtualThreads() {
        return stats("pools", "containerVirtual").map(c -> c.max() > 0).orElse(false);
    }

    /** CPUs available to the target, from case.json's target.cpus; NaN when unknown. */
    public double cpus() {
        String c = info.target().get("cpus");
        try {
            return c == null ? Double.NaN : Double.parseDouble(c);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** The row's {@code perRequest}, else its count over the requests the table (or case) saw. */
    public double perRequest(Table t, int row) {
        double v = t.number(row, "perRequest");
        if (Double.isFinite(v)) return v;
        double req = meta(t, "requests");
        if (!(req > 0)) req = requestCount();
        return req > 0 ? t.number(row, "count") / req : Double.NaN;
    }

    /** The row's {@code perSecond}, else its count over the seconds observed. */
    public double perSecond(Table t, int row) {
        double v = t.number(row, "perSecond");
        if (Double.isFinite(v)) return v;
        double secs = meta(t, "seconds");
        if (!(secs > 0)) secs = observedSeconds();
        return secs > 0 ? t.number(row, "count") / secs : Double.NaN;
    }

    /** A row's stack (list of frames), empty when absent. */
    @SuppressWarnings("unchecked")
    public static List<String> stack(Table t, int row, String column) {
        Object v = t.rows().get(row).get(column);
        if (!(v instanceof List)) return List.of();
        List<String> out = new ArrayList<>();
        for (Object o : (List<Object>) v) out.add(String.valueOf(o));
        return out;
    }

    /** {@code culprit exec <pid> "cmd"}, with the case's pid when known, to confirm on the live service. */
    public String confirm(String consoleCommand) {
        return "culprit exec " + pid() + " " + quoted(consoleCommand);
    }

    /** The target's pid from case.json, or {@code <pid>}. */
    public String pid() {
        return info.target().getOrDefault("pid", "<pid>");
    }

    /**
     * A console command in a shell's double quotes, what the shell would expand escaped: nested and
     * synthetic classes ({@code Outer$Inner}, {@code lambda$get$0}) would otherwise lose their names
     * to variable expansion when the line is pasted.
     */
    public static String quoted(String consoleCommand) {
        return "\"" + consoleCommand.replaceAll("([\\\\\"$`])", "\\\\$1") + "\"";
    }

    /**
     * How often a pool was full: the windows where both columns of {@code series} were read, those
     * where {@code used} reached {@code capacity} (of at least 1), and the largest capacity seen.
     * Empty when either column is absent.
     */
    public Optional<Fill> fill(String series, String used, String capacity) {
        Optional<double[]> u = column(series, used), c = column(series, capacity);
        if (u.isEmpty() || c.isEmpty()) return Optional.empty();
        int read = 0, full = 0;
        double max = 0;
        for (int i = 0; i < Math.min(u.get().length, c.get().length); i++) {
            double a = u.get()[i], t = c.get()[i];
            if (!Double.isFinite(a) || !Double.isFinite(t) || t < 1) continue;
            read++;
            max = Math.max(max, t);
            if (a >= t) full++;
        }
        return Optional.of(new Fill(read, full, max));
    }

    /** See {@link #fill}. */
    public static final class Fill {
        public final int windows, full;
        public final double capacity;

        Fill(int windows, int full, double capacity) {
            this.windows = windows;
            this.full = full;
            this.capacity = capacity;
        }

        /** Full windows of those read, 0 when none was read. */
        public double share() {
            return windows == 0 ? 0 : (double) full / windows;
        }
    }

    /** A table column as text, or "" when absent, for rows whose fields are optional. */
    public static String text(Table t, int row, String column) {
        String s = t.text(row, column);
        return s == null ? "" : s;
    }

    /**
     * A {@code calls} row's application frames, innermost first: its {@code callStack} (six frames,
     * from session 51's agent on), else its {@code callPath}, else its {@code caller}; empty when
     * the agent could not place the call.
     */
    public static List<String> callFrames(Table t, int row) {
        String s = text(t, row, "callStack");
        if (s.isEmpty()) s = text(t, row, "callPath");
        if (s.isEmpty()) s = text(t, row, "caller");
        if (s.isEmpty() || s.startsWith("(")) return List.of();
        return List.of(s.split(" ← "));
    }

    /** A number from a table's meta, NaN when absent. */
    public static double meta(Table t, String key) {
        if (t == null) return Double.NaN;
        Object v = t.meta().get(key);
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
    }
}
