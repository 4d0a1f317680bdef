package io.culprit.jfr;

import io.culprit.model.Series;
import io.culprit.model.Table;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Plain-text summaries of the JFR evidence for a terminal: GC, exceptions, class loading, locks.
 * Each section says "none" rather than disappearing, so the reader sees what was checked.
 */
public final class EvidenceText {
    private static final int ROWS = 10;
    private static final int STACK = 6;

    private EvidenceText() { }

    public static String gc(Map<String, Series> series, Map<String, Table> tables, double seconds) {
        StringBuilder sb = new StringBuilder("== GC ==\n");
        Series gc = series.get("gc");
        if (gc != null) {
            double count = sum(gc, "pauseCount"), pause = sum(gc, "pauseSumMs");
            double max = Arrays.stream(gc.column("pauseMaxMs").orElse(new double[0])).filter(d -> !Double.isNaN(d)).max().orElse(0);
            sb.append(String.format(Locale.ROOT, "pauses: %.0f in %.1f s, total %.1f ms (%.2f %% of wall time), longest %.1f ms%n",
                    count, seconds, pause, 100 * pause / (seconds * 1000), max));
        }
        Series alloc = series.get("alloc");
        if (alloc != null) {
            double[] r = Arrays.stream(alloc.column("mbPerSec").orElse(new double[0])).filter(d -> !Double.isNaN(d)).toArray();
            sb.append(r.length == 0 ? "allocation: not measurable (fewer than two GCs)\n"
                    : String.format(Locale.ROOT, "allocation: %.1f MB/s average over %d s between GCs%n", Arrays.stream(r).average().orElse(0), r.length));
        }
        Table collectors = tables.get("gc-collectors");
        if (collectors != null) {
            for (Map<String, Object> row : collectors.rows()) {
                sb.append(String.format(Locale.ROOT, "  %-24s %6d collections  %9.1f ms  max %7.1f ms%n", row.get("collector"),
                        ((Number) row.get("count")).longValue(), num(row, "sumMs"), num(row, "maxMs")));
            }
        }
        Table config = tables.get("heap-config");
        if (config != null && !config.isEmpty()) {
            Map<String, Object> c = config.rows().get(0);
            sb.append(String.format(Locale.ROOT, "heap: %s, initial %s MB, max %s MB, MinHeapFreeRatio %s, MaxHeapFreeRatio %s%n",
                    c.get("collector"), whole(c.get("initialMb")), whole(c.get("maxMb")), whole(c.get("minHeapFreeRatio")),
                    whole(c.get("maxHeapFreeRatio"))));
        }
        return sb.toString();
    }

    public static String exceptions(Table t) {
        StringBuilder sb = new StringBuilder("== Exceptions (thrown, caught or not) ==\n");
        if (t == null || t.isEmpty()) return sb.append("none recorded\n").toString();
        if (String.valueOf(t.meta().get("source")).contains("errors only")) {
            sb.append("(this recording has errors only: exceptions were not enabled when it was made)\n");
        }
        for (Map<String, Object> r : head(t)) {
            sb.append(String.format(Locale.ROOT, "%8d  %8.1f/s  %s  at %s%s%n", ((Number) r.get("count")).longValue(), num(r, "perSecond"),
                    r.get("type"), r.get("site"), r.get("message") == null ? "" : "  \"" + r.get("message") + "\""));
            stack(sb, r.get("stack"));
        }
        return sb.toString();
    }

    public static String classLoading(Table t) {
        StringBuilder sb = new StringBuilder("== Class loading (failed loads) ==\n");
        if (t == null || t.isEmpty()) return sb.append("none recorded\n").toString();
        for (Map<String, Object> r : head(t)) {
            sb.append(String.format(Locale.ROOT, "%8d  %8.1f/s  %-10s %s  from %s%n", ((Number) r.get("count")).longValue(),
                    num(r, "perSecond"), r.get("kind"), r.get("name"), r.get("caller")));
        }
        return sb.toString();
    }

    public static String locks(Table t) {
        StringBuilder sb = new StringBuilder("== Lock contention ==\n");
        if (t == null || t.isEmpty()) return sb.append("none recorded\n").toString();
        for (Map<String, Object> r : head(t)) {
            sb.append(String.format(Locale.ROOT, "%8.1f ms blocked  %6d events  %-7s %s%s%n", num(r, "blockedMs"),
                    ((Number) r.get("events")).longValue(), r.get("kind"), r.get("lockClass"),
                    r.get("ownerThread") == null ? "" : "  owner " + r.get("ownerThread")));
            if (r.get("ownerStack") instanceof List && !((List<?>) r.get("ownerStack")).isEmpty()) {
                sb.append("    owner was at:\n");
                stack(sb, r.get("ownerStack"));
            }
            sb.append("    waiters at:\n");
            stack(sb, r.get("waiterStack"));
        }
        return sb.toString();
    }

    private static List<Map<String, Object>> head(Table t) {
        return t.rows().subList(0, Math.min(ROWS, t.rows().size()));
    }

    private static void stack(StringBuilder sb, Object frames) {
        if (!(frames instanceof List)) return;
        List<?> l = (List<?>) frames;
        for (int i = 0; i < Math.min(STACK, l.size()); i++) sb.append("      ").append(l.get(i)).append('\n');
        if (l.size() > STACK) sb.append("      ... ").append(l.size() - STACK).append(" more\n");
    }

    private static double sum(Series s, String column) {
        return Arrays.stream(s.column(column).orElse(new double[0])).filter(d -> !Double.isNaN(d)).sum();
    }

    private static double num(Map<String, Object> r, String column) {
        Object v = r.get(column);
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
    }

    private static String whole(Object v) {
        return v instanceof Number ? String.format(Locale.ROOT, "%.0f", ((Number) v).doubleValue()) : "?";
    }
}
