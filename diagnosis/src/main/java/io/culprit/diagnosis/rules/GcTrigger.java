package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;
import java.util.Locale;
import java.util.Optional;

/**
 * What asked for the collections, when it was code rather than a full young generation: the
 * {@code gc-causes} table (JFR's cause per collection). Three causes change the verdict's culprit
 * and fix, because tuning the heap does not help them:
 * <ul>
 *   <li>{@code System.gc()}: every call is a full, stop-the-world collection of the whole heap
 *       (G1 and Parallel); {@code jdk.SystemGC}'s stack names the caller.</li>
 *   <li>{@code G1 Humongous Allocation}: objects of half a G1 region or more go straight into
 *       contiguous old regions, and each such allocation can start a concurrent cycle; when no
 *       contiguous run is free, G1 falls back to a full compaction.</li>
 *   <li>{@code Metadata GC Threshold}: Metaspace filling with classes, usually generated at run
 *       time.</li>
 * </ul>
 * Collections any tool asked for (jmap, jcmd, a JVMTI agent) are named as such. Without a cause,
 * allocation that mostly reads query results for one method, megabytes per request, is named
 * ({@link #resultSets}).
 */
final class GcTrigger {
    /** Half the paused time asked for by one cause: that cause is the pressure. */
    static final double PAUSE_SHARE = 0.5;
    /**
     * Humongous allocations are counted by collection, not by paused time: the full compactions
     * they end in carry their own cause ("G1 Compaction Pause"), which is most of the time.
     */
    static final double HUMONGOUS_COUNT_SHARE = 0.3;

    final String summary;
    final String culprit;
    final String fix;
    final String explanation;

    GcTrigger(String summary, String culprit, String fix, String explanation) {
        this.summary = summary;
        this.culprit = culprit;
        this.fix = fix;
        this.explanation = explanation;
    }

    /** The trigger when one cause is behind the collections; empty when they are the heap filling, or unknown. */
    static Optional<GcTrigger> read(Evidence ev, Numbers n) {
        Optional<Table> causes = ev.rows("gc-causes");
        if (causes.isEmpty()) return Optional.empty();
        Table t = causes.get();
        double count = 0, paused = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            count += finite(t.number(i, "count"));
            paused += finite(t.number(i, "sumMs"));
        }
        if (!(count > 0)) return Optional.empty();
        for (int i = 0; i < t.rows().size(); i++) {
            String cause = t.text(i, "cause");
            if (cause == null) continue;
            String ref = "tables/gc-causes#" + i;
            double c = t.number(i, "count"), ms = t.number(i, "sumMs");
            double pauseShare = paused > 0 ? ms / paused : 0;
            if (cause.equals("System.gc()") && pauseShare >= PAUSE_SHARE) {
                String site = Evidence.text(t, i, "site");
                double calls = t.number(i, "calls");
                boolean located = !site.isEmpty();
                if (Evidence.stack(t, i, "stack").stream().anyMatch(f -> f.startsWith(DIRECT_MEMORY))) {
                    return Optional.of(directMemory(ev, n, ref, c, count, ms, paused, calls, located ? site : null));
                }
                return Optional.of(new GcTrigger("System.gc() asked for " + asked(n, ref, c, count, ms, paused)
                        + (located ? ", called " + (Double.isFinite(calls) ? n.tag(Fmt.num(calls), ref) + " times " : "") + "from " + site : "")
                        + fullGcs(ev, n),
                        located ? site : "System.gc() calls",
                        "Remove the System.gc() call" + (located ? " at " + site : "") + ": the JVM collects when it needs to."
                                + " If a library makes it, -XX:+ExplicitGCInvokesConcurrent (G1) turns each call into a concurrent"
                                + " cycle, -XX:+DisableExplicitGC ignores them (not with code that needs it to free direct buffers).",
                        "System.gc() is a full, stop-the-world collection of the whole heap with G1 and Parallel, whatever the"
                                + " heap's state: the service stops for it on every call."));
            }
            if (cause.equals("G1 Humongous Allocation") && c / count >= HUMONGOUS_COUNT_SHARE) {
                double region = ev.rows("heap-config").map(h -> h.number(0, "regionMb")).orElse(Double.NaN);
                String site = topSite(ev);
                String regionText = Double.isFinite(region) ? " (≥ " + n.tag(Fmt.num(region / 2), "tables/heap-config#0") + " MB with "
                        + n.tag(Fmt.num(region), "tables/heap-config#0") + " MB regions)" : "";
                return Optional.of(new GcTrigger("humongous allocations" + regionText + " started "
                        + n.tag(Fmt.num(c), ref) + " of " + n.tag(Fmt.num(count), "tables/gc-causes") + " collections"
                        + fullGcs(ev, n),
                        site == null ? "humongous allocations" : site,
                        "Stop allocating objects of half a region or more per request: stream the data, reuse or pool the"
                                + " buffer, or build it in chunks. Or raise -XX:G1HeapRegionSize (up to 32m) to at least twice"
                                + " the object's size so it is an ordinary young allocation.",
                        "G1 puts an object of half a region or more straight into contiguous old regions; each such"
                                + " allocation can start a concurrent cycle, and when no contiguous run of regions is free, G1"
                                + " falls back to a full, stop-the-world compaction. Young-generation tuning does not reach them."));
            }
            if (cause.startsWith("Metadata GC") && pauseShare >= PAUSE_SHARE) {
                return Optional.of(new GcTrigger("Metaspace filling asked for " + asked(n, ref, c, count, ms, paused) + fullGcs(ev, n), "class metadata (Metaspace)",
                        "Find what defines classes at run time (proxies, scripts, serializers or reflection accessors built per"
                                + " call: see hot-path-classloading) and build them once; then size -XX:MetaspaceSize to the"
                                + " steady state.",
                        "A collection for Metaspace runs when class metadata reaches its high-water mark; classes defined"
                                + " over and over keep raising it."));
            }
            if (external(cause) && pauseShare >= PAUSE_SHARE) {
                return Optional.of(new GcTrigger("a tool asked for " + asked(n, ref, c, count, ms, paused) + " (" + cause + ")" + fullGcs(ev, n), cause,
                        "Stop the tool that forces collections (jmap -histo, heap dumps, jcmd GC.run, a profiler or agent"
                                + " forcing GC) on a service under load.",
                        "Heap inspections, heap dumps and forced collections are full, stop-the-world collections."));
            }
        }
        return Optional.empty();
    }

    /** The JDK's own System.gc(): allocateDirect reached -XX:MaxDirectMemorySize. */
    private static final String DIRECT_MEMORY = "java.nio.Bits.reserveMemory";

    /**
     * System.gc() called by the JDK because direct memory ran out: removing the call is not the
     * cure (the buffers' native memory is freed only when a collection finds them unreachable),
     * allocating fewer direct buffers is.
     */
    private static GcTrigger directMemory(Evidence ev, Numbers n, String ref, double c, double count, double ms, double paused,
            double calls, String site) {
        return new GcTrigger("System.gc() asked for " + asked(n, ref, c, count, ms, paused) + ", called "
                + (Double.isFinite(calls) ? n.tag(Fmt.num(calls), ref) + " times " : "")
                + "by java.nio.Bits.reserveMemory: direct memory ran out under ByteBuffer.allocateDirect"
                + (site == null ? "" : " at " + site) + fullGcs(ev, n),
                site == null ? "direct buffers allocated per call" : site,
                "Allocate direct buffers once and reuse them (one per thread or connection, or a pool such as Netty's"
                        + " pooled allocator), or use heap buffers (ByteBuffer.allocate) for short-lived data; then size"
                        + " -XX:MaxDirectMemorySize to what stays allocated. Do not add -XX:+DisableExplicitGC: this call is"
                        + " how the JDK frees unreachable direct buffers, and without it allocateDirect fails with"
                        + " OutOfMemoryError: Direct buffer memory.",
                "A direct buffer's native memory is released only when a collection finds the buffer unreachable. When"
                        + " ByteBuffer.allocateDirect reaches -XX:MaxDirectMemorySize (by default the maximum heap size), the"
                        + " JDK calls System.gc() (a full, stop-the-world collection with G1 and Parallel) and retries with"
                        + " back-off sleeps, so requests that allocate a direct buffer each wait for whole-heap collections.");
    }

    /** Frames that read a query's result: JDBC drivers, embedded databases, row mappers, ORMs' result processing. */
    private static final String[] RESULT_READING = {
        "org.postgresql.", "com.mysql.", "org.mariadb.", "oracle.jdbc.", "com.microsoft.sqlserver.", "org.h2.", "org.hsqldb.",
        "org.apache.derby.", "org.sqlite.", "org.springframework.jdbc.core.", "org.hibernate.sql.results.", "org.hibernate.loader.",
        "org.jooq.", "org.apache.ibatis.executor.resultset.", "org.eclipse.persistence."
    };
    /** Half the sampled bytes reading results for one method is what the collector clears. */
    static final double RESULTS_SHARE = 0.5;
    /** A megabyte of results read per request is a result set, not a row. */
    static final double RESULTS_KB_PER_REQUEST = 1024;

    /**
     * When no cause asked for the collections: most sampled allocation reads query results for one
     * application method, megabytes per request. The heap's size is not the cure; the result's is.
     * A service outside the lab that read 40,000 rows per request into maps (27 MB a request,
     * 70 % of wall time paused) was told to set -Xms equal to -Xmx.
     */
    static Optional<GcTrigger> resultSets(Evidence ev, Numbers n, double kbPerRequest) {
        Optional<Table> sites = ev.rows("alloc-sites");
        if (sites.isEmpty() || !(kbPerRequest >= RESULTS_KB_PER_REQUEST)) return Optional.empty();
        Table t = sites.get();
        java.util.Map<String, Double> byCaller = new java.util.HashMap<>();
        for (int i = 0; i < t.rows().size(); i++) {
            java.util.List<String> stack = Evidence.stack(t, i, "stack");
            boolean reading = stack.stream().anyMatch(f -> io.culprit.diagnosis.Frames.startsWithAny(f, RESULT_READING));
            String app = io.culprit.diagnosis.Frames.firstApplication(stack);
            if (reading && app != null) byCaller.merge(app, finite(t.number(i, "share")), Double::sum);
        }
        java.util.Map.Entry<String, Double> top = byCaller.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElse(null);
        if (top == null || top.getValue() < RESULTS_SHARE) return Optional.empty();
        String site = top.getKey();
        String sql = SlowCallsRule.costliestSql(ev, io.culprit.diagnosis.Frames.stripLine(site));
        // Shares of the listed sites; the table keeps the top ones, so their sum stays within all sampled bytes.
        return Optional.of(new GcTrigger(n.tag(Fmt.pct(Math.min(1, top.getValue())), "tables/alloc-sites")
                + " of sampled allocation reads query results for " + site + (sql == null ? "" : " (sql " + SlowCallsRule.quote(sql) + ")"), site,
                "Read less per request: select only the rows and columns it needs (page with LIMIT or a keyset, aggregate in"
                        + " SQL), or stream the rows instead of collecting them (JdbcTemplate.queryForStream or a"
                        + " RowCallbackHandler with a fetch size; PostgreSQL's driver streams only inside a transaction with"
                        + " setFetchSize). A bigger heap only spaces the same collections out.",
                "The driver materializes a result's rows (PostgreSQL's reads them all before returning the first), and"
                        + " the mapper builds a map or object per row: a large result per request is megabytes the collector"
                        + " must clear, and under load it collects continuously."));
    }

    /** "N of M collections (X of Y paused)", tagged only when a trigger prints it. */
    private static String asked(Numbers n, String ref, double c, double count, double ms, double paused) {
        return n.tag(Fmt.num(c), ref) + " of " + n.tag(Fmt.num(count), "tables/gc-causes") + " collections ("
                + n.tag(Fmt.ms(ms), ref) + " of " + n.tag(Fmt.ms(paused), "tables/gc-causes") + " paused)";
    }

    /** Causes a tool outside the application asks for. */
    private static boolean external(String cause) {
        String c = cause.toLowerCase(Locale.ROOT);
        return c.contains("heap inspection") || c.contains("heap dump") || c.contains("diagnostic command") || c.contains("jvmti");
    }

    /** "; N full GCs took X ms" from gc-collectors, when any collector ran full collections. */
    private static String fullGcs(Evidence ev, Numbers n) {
        Optional<Table> cs = ev.rows("gc-collectors");
        if (cs.isEmpty()) return "";
        Table t = cs.get();
        for (int i = 0; i < t.rows().size(); i++) {
            String name = t.text(i, "collector");
            if (name == null || !(name.contains("Full") || name.contains("MarkSweep") || name.equals("SerialOld")
                    || name.equals("ParallelOld"))) continue;
            String ref = "tables/gc-collectors#" + i;
            return "; " + n.tag(Fmt.num(t.number(i, "count")), ref) + " full collections took " + n.tag(Fmt.ms(t.number(i, "sumMs")), ref)
                    + " (up to " + n.tag(Fmt.ms(t.number(i, "maxMs")), ref) + " each)";
        }
        return "";
    }

    /** The site of most sampled allocation (gc-pressure's summary prints it with its share); null when none carries enough. */
    private static String topSite(Evidence ev) {
        return GcPressureRule.allocationSites(ev).map(t -> t.text(0, "site")).orElse(null);
    }
}
