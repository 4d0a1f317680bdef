package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;
import java.util.List;
import java.util.Locale;

/**
 * A slow dependency call whose replies are large, read from the allocation the client library
 * makes decoding them: a value of megabytes crosses the network and is copied, decoded and
 * converted on every call, whatever the dependency's own speed. A service outside the lab that
 * read a 1 MB Redis value per request through Spring Data Redis and Lettuce allocated 2 MB per
 * call in Lettuce's codec and Spring's serializer (99 % of its allocation) and was told to add an
 * index or batch. Keyed to the client libraries' packages, never to the service.
 */
final class LargeReplies {
    /** A reply decoded into at least this much per call is large. */
    static final double MB_PER_CALL = 0.25;
    /** And its decoding is most of the service's allocation. */
    static final double MIN_SHARE = 0.3;
    /**
     * An embedded engine that allocates this much per row it returns is reading rows it does not
     * return (a row of a quarter megabyte is a document's BLOB, rare; the blind lookup read 8.6 MB per row).
     */
    static final double SCAN_MB_PER_ROW = 0.25;

    private static final String[] REDIS = {"io.lettuce.", "redis.clients.jedis.", "org.springframework.data.redis.", "org.redisson."};
    private static final String[] SQL = {"org.postgresql.", "com.mysql.", "org.mariadb.", "org.h2.", "oracle.jdbc.",
        "com.microsoft.sqlserver.", "org.hsqldb.", "org.apache.derby."};
    private static final String[] HTTP = {"org.apache.hc.", "org.apache.http.", "okhttp3.", "okio.", "jdk.internal.net.http.",
        "org.springframework.web.client.", "org.springframework.http.converter.", "reactor.netty.", "org.eclipse.jetty.client."};

    private LargeReplies() { }

    /**
     * "; each reply is large: 2.1 MB allocated per call decoding it (99 % of all allocation, the most at
     * X)", or "" when the allocation does not say so.
     */
    static String clause(Evidence ev, String kind, double calls, Numbers n) {
        return clause(ev, kind, calls, Double.NaN, n);
    }

    /**
     * As {@link #clause(Evidence, String, double, Numbers)}, with the rows the calls' results gave
     * (NaN when not counted): an embedded database whose allocation is its own reading of
     * {@link #SCAN_MB_PER_ROW} or more per row returned is scanning, not replying ({@link InProcessDatabase}).
     */
    static String clause(Evidence ev, String kind, double calls, double rows, Numbers n) {
        Table sites = ev.rows("alloc-sites").orElse(null);
        String[] client = clientOf(kind);
        if (sites == null || client == null || !(calls > 0)) return "";
        double total = Evidence.meta(sites, "totalMb");
        if (!(total > 0)) return "";
        double mb = 0;
        int top = -1;
        for (int i = 0; i < sites.rows().size(); i++) {
            if (!decodes(Evidence.stack(sites, i, "stack"), client)) continue;
            double share = sites.number(i, "share");
            if (!Double.isFinite(share)) continue;
            mb += share * total;
            if (top < 0 || share > sites.number(top, "share")) top = i;
        }
        double perCall = mb / calls;
        if (top < 0 || perCall < MB_PER_CALL || mb < MIN_SHARE * total) return "";
        if ("sql".equalsIgnoreCase(kind) && mb / Math.max(1, rows) >= SCAN_MB_PER_ROW
                && InProcessDatabase.executes(Evidence.stack(sites, top, "stack"))) return "";
        String ref = "tables/alloc-sites#" + top;
        return "; each reply is large: " + n.tag(Fmt.num(perCall) + " MB", ref) + " allocated per call decoding it ("
                + n.tag(Fmt.pct(mb / total), "tables/alloc-sites") + " of all allocation, the most at "
                + Frames.shortName(sites.text(top, "site")) + ")";
    }

    /**
     * A large reply to a SELECT that orders its rows and sets no LIMIT: the database sorts and sends every
     * matching row, and the code most often wants the first (the latest, the top few). A blind jOOQ service
     * (session 46) read the latest scan of a depot with fetchAny() on such a query: 8,000 rows, 2.6 MB, per call.
     */
    static boolean orderedUnbounded(String kind, String sql) {
        if (!"sql".equalsIgnoreCase(kind) || sql == null) return false;
        String body = CallShape.sqlBody(sql).toLowerCase(Locale.ROOT);
        return body.startsWith("select") && ORDER_BY.matcher(body).find() && !CallShape.paged(body);
    }

    private static final java.util.regex.Pattern ORDER_BY = java.util.regex.Pattern.compile("\\border\\s+by\\b");
    static final String ORDERED_CLAUSE = "; the statement orders every matching row and has no LIMIT: if the code takes the"
            + " first rows (the latest, the top few), the rest cross the network and are decoded for nothing";
    static final String ORDERED_FIX = "Ask the database for the rows the code uses: LIMIT the ordered query (jOOQ's fetchAny,"
            + " fetchOptional and fetchOne add no LIMIT: use limit(1).fetchOne(); JPA's setMaxResults(1); Spring Data's findFirstBy or"
            + " Top), or compute the value in SQL (SELECT MAX(column) rather than the newest row); with an index on the filter and the order"
            + " column the database then reads one row. If the code does use every row, page or stream them (a fetch size)"
            + " instead of materialising the whole result.";

    /** The fix for large replies of {@code kind}. */
    static String fix(String kind) {
        switch (kind.toLowerCase(Locale.ROOT)) {
            case "redis": return "Keep values small: a value of megabytes crosses the network and is copied and decoded"
                    + " on every read, and the connection serves no other command meanwhile (Lettuce shares one per"
                    + " client). Store the parts apart (a hash read with HGET or HMGET for the fields a request needs),"
                    + " keep a value that rarely changes in the service's own memory, or compress it.";
            case "sql": return "Fetch only what the request uses: name the columns (no SELECT * over large text or BLOB"
                    + " columns), page the rows (LIMIT, keyset pagination), and stream a large result (a fetch size)"
                    + " instead of materialising it whole. With JPA, read a list through a DTO projection (select new"
                    + " ...(e.id, e.title)) or keep the large column in an entity of its own: Hibernate ignores"
                    + " @Basic(fetch = LAZY) without bytecode enhancement and loads the column with every row.";
            default: return "Ask for less per call: the fields the request needs, a page at a time, compressed; cache"
                    + " a reply that rarely changes.";
        }
    }

    private static String[] clientOf(String kind) {
        switch (kind == null ? "" : kind.toLowerCase(Locale.ROOT)) {
            case "redis": return REDIS;
            case "sql": return SQL;
            case "http": return HTTP;
            default: return null;
        }
    }

    private static boolean decodes(List<String> stack, String[] client) {
        for (String f : stack) if (Frames.startsWithAny(f, client)) return true;
        return false;
    }
}
