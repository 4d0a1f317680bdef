package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Database;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import io.culprit.model.Table;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a slow call's own text says about its cure, for the commands and statements whose cost is
 * known whatever the service: Redis's {@code KEYS} walks the whole keyspace and blocks every other
 * client while it does, a whole-collection read is O(N) in the collection, and a slow SELECT is
 * read from its plan, which names the table and the columns it filters on. A service outside the
 * lab that ran {@code KEYS sess:*} per request and one that filtered 300,000 rows on an
 * unindexed column both read "make the call cheaper (index, smaller result, batching, caching)".
 */
final class CallShape {
    /** Redis commands that return or walk a whole collection or keyspace. */
    /** Commands that block on the server until data arrives or a timeout passes. */
    private static final Set<String> REDIS_BLOCKING = Set.of("BLPOP", "BRPOP", "BLMOVE", "BRPOPLPUSH",
            "BZPOPMIN", "BZPOPMAX", "BLMPOP", "BZMPOP");
    private static final Set<String> REDIS_WHOLE = Set.of("SMEMBERS", "HGETALL", "HKEYS", "HVALS", "LRANGE", "ZRANGE",
            "ZRANGEBYSCORE", "ZREVRANGE", "SUNION", "SINTER", "SDIFF");
    /**
     * After WHERE, AND or OR, a space or an opening parenthesis, and any more of those: EclipseLink writes
     * {@code WHERE ((a = ?) AND (LOWER(b) = LOWER(?)))}.
     */
    private static final String OPEN = "(?:\\s+|\\s*\\()[\\s(]*";
    private static final Pattern FROM = Pattern.compile("\\bfrom\\s+([a-z_][a-z0-9_.\"]*)");
    private static final Pattern FILTER = Pattern.compile("(?:\\bwhere|\\band|\\bor)" + OPEN + "(?:[a-z_][a-z0-9_]*\\.)?([a-z_][a-z0-9_]*)\\s*"
            + "(?:=|<|>|<=|>=|\\bin\\b|\\blike\\b|\\bbetween\\b)");

    /** A filtered column inside a function call (lower(email) = ?): an index on the column cannot serve it. */
    private static final Pattern WRAPPED = Pattern.compile("(?:\\bwhere|\\band|\\bor)" + OPEN + "([a-z_][a-z0-9_]*)\\(\\s*(?:[a-z_][a-z0-9_]*\\.)?"
            + "([a-z_][a-z0-9_]*)\\s*\\)\\s*(?:=|<|>|<=|>=|\\bin\\b|\\blike\\b|\\bbetween\\b)");
    private static final Pattern LIKE = Pattern.compile("\\blike\\b");
    private static final Pattern WHERE = Pattern.compile("\\bwhere\\b");
    private static final Pattern OFFSET = Pattern.compile("\\boffset\\s+(?:\\?|\\d+)");
    private static final Pattern ORDER = Pattern.compile("\\border\\s+by\\s+(?:[a-z_][a-z0-9_]*\\.)?([a-z_][a-z0-9_]*)");

    private CallShape() { }

    /** A join on a parent's id: {@code left join b38a_review r1_0 on p1_0.id=r1_0.product_id}, either side first. */
    private static final Pattern JOIN = Pattern.compile("\\bjoin\\s+([a-z_][a-z0-9_.\"]*)\\s+(?:as\\s+)?([a-z_][a-z0-9_]*)\\s+on\\s+"
            + "([a-z_][a-z0-9_]*)\\.([a-z_][a-z0-9_]*)\\s*=\\s*([a-z_][a-z0-9_]*)\\.([a-z_][a-z0-9_]*)");
    private static final Pattern ALIASED = Pattern.compile("\\bfrom\\s+([a-z_][a-z0-9_.\"]*)\\s+(?:as\\s+)?([a-z_][a-z0-9_]*)");

    /**
     * The tables a SELECT joins to its main table's id when there are two or more, each a collection
     * of the main row (the joined table's column equals the main table's {@code id}): their rows
     * multiply, every main row coming back once per combination. A service outside the lab loaded 20
     * products with an entity graph over their 20 images and 30 reviews (both Sets, so Hibernate did
     * not refuse it): 12,000 wide rows per request, 13 MB decoded. Null for any other statement.
     */
    static List<String> collectionJoins(String sql) {
        List<String> tables = collectionTables(sql);
        return tables != null && tables.size() >= 2 ? tables : null;
    }

    /**
     * A statement without the comments before its verb (a block comment that names the DAO method,
     * as JDBI's users and Hibernate's SQL comments put them; line comments), trimmed: what the checks
     * of a statement's kind read. A tagged select once read as a write, and its waits for a busy
     * server as a row lock.
     */
    static String sqlBody(String sql) {
        String s = sql == null ? "" : sql.trim();
        while (true) {
            if (s.startsWith("/*")) {
                int end = s.indexOf("*/");
                if (end < 0) return s;
                s = s.substring(end + 2).trim();
            } else if (s.startsWith("--")) {
                int end = s.indexOf('\n');
                if (end < 0) return "";
                s = s.substring(end + 1).trim();
            } else {
                return s;
            }
        }
    }

    /** The tables a select joins as collections of its main row (see above), possibly none; null for any other statement. */
    static List<String> collectionTables(String sql) {
        String s = sqlBody(sql).toLowerCase(Locale.ROOT);
        if (!s.startsWith("select")) return null;
        Matcher from = ALIASED.matcher(s);
        if (!from.find()) return null;
        String root = from.group(2);
        List<String> tables = new ArrayList<>();
        Matcher j = JOIN.matcher(s);
        while (j.find()) {
            String alias = j.group(2);
            boolean parentId = j.group(3).equals(root) && j.group(4).equals("id") && j.group(5).equals(alias) && !j.group(6).equals("id")
                    || j.group(5).equals(root) && j.group(6).equals("id") && j.group(3).equals(alias) && !j.group(4).equals("id");
            if (parentId) tables.add(j.group(1));
        }
        return tables;
    }

    /**
     * A page read through a collection fetch: the statement joins a collection of its main row and
     * has no LIMIT, OFFSET or FETCH, while the same caller also counts (a Spring Data Page's count
     * query). Hibernate cannot limit rows that a collection multiplies, so it runs the select
     * unpaged and slices the page in memory (HHH90003004): every page reads the whole result. A
     * booking service outside the lab paged 20 orders out of 2,400 so, with their lines.
     */
    static boolean pagedInMemory(Table calls, int row) {
        if (!unpagedCollectionJoin(calls.text(row, "target"))) return false;
        String caller = io.culprit.diagnosis.Frames.stripLine(io.culprit.diagnosis.Evidence.text(calls, row, "caller"));
        for (int i = 0; i < calls.rows().size(); i++) {
            if (i == row || !"sql".equalsIgnoreCase(calls.text(i, "kind")) || !COUNT.matcher(sqlBody(calls.text(i, "target"))).find()) continue;
            if (io.culprit.diagnosis.Frames.stripLine(io.culprit.diagnosis.Evidence.text(calls, i, "caller")).equals(caller)) return true;
        }
        return false;
    }

    /**
     * The same shape, told by Hibernate itself: its warning that it pages a collection fetch in memory
     * (HHH90003004 in Hibernate 6 and 7, on logger org.hibernate.orm.query; HHH000104 in 5), logged
     * about once per run of the statement. The logging table names the message when the agent read
     * it, else only the logger: then the query logger's warnings at the statement's rate, beside an
     * unpaged select that joins a collection. A blind Spring Boot 4 service (session 46) paged clients
     * with their policies through a Slice, which runs no count query: 8,000 clients read per page of 25.
     * The warning's message ("" when only its logger is known), or null.
     */
    static String warnedPagedInMemory(io.culprit.diagnosis.Evidence ev, Table calls, int row) {
        if (!unpagedCollectionJoin(calls.text(row, "target"))) return null;
        Table logging = ev.rows("logging").orElse(null);
        if (logging == null) return null;
        double statements = calls.number(row, "count");
        for (int i = 0; i < logging.rows().size(); i++) {
            if (!"WARN".equals(logging.text(i, "level")) || !(logging.number(i, "events") >= statements / 2)) continue;
            String message = io.culprit.diagnosis.Evidence.text(logging, i, "message");
            String logger = logging.text(i, "logger");
            if (message.isEmpty() ? HIBERNATE_QUERY_LOGGERS.contains(logger) : IN_MEMORY_WARNING.matcher(message).find()) return message;
        }
        return null;
    }

    private static final List<String> HIBERNATE_QUERY_LOGGERS = List.of("org.hibernate.orm.query",
            "org.hibernate.hql.internal.ast.QueryTranslatorImpl", "org.hibernate.query.internal.AbstractProducedQuery");
    private static final Pattern IN_MEMORY_WARNING = Pattern.compile("HHH90003004|HHH000104|applying in memory", Pattern.CASE_INSENSITIVE);

    /** A select that joins a collection of its main row and has no LIMIT, OFFSET or FETCH. */
    private static boolean unpagedCollectionJoin(String sql) {
        List<String> joined = collectionTables(sql);
        return joined != null && !joined.isEmpty() && !paged(sql);
    }

    /** Whether a statement limits its rows (LIMIT, OFFSET, FETCH FIRST/NEXT, ROWNUM, TOP). */
    static boolean paged(String sql) {
        return UNPAGED_NOT.matcher(sql).find();
    }

    private static final Pattern UNPAGED_NOT = Pattern.compile("\\b(limit|offset|fetch\\s+(first|next)|rownum|top\\s*\\(?\\s*[?\\d])\\b",
            Pattern.CASE_INSENSITIVE);
    static final String PAGED_IN_MEMORY_FIX = "Page the ids, then fetch: one query for the page of ids (ORDER BY and LIMIT apply"
            + " there), and a second that join-fetches the collection for those ids only (WHERE o.id IN :ids); or drop the"
            + " collection's JOIN FETCH from the paged query and load it in batches (@BatchSize, hibernate.default_batch_fetch_size)."
            + " hibernate.query.fail_on_pagination_over_collection_fetch=true makes such a query fail instead of paging in memory.";

    static final String COLLECTION_JOINS_FIX = "Fetch one collection per query: the joined collections multiply each other's"
            + " rows (20 rows of one by 30 of another come back as 600 per parent). With Hibernate, join fetch one collection"
            + " (JOIN FETCH or @EntityGraph) and load the other for the same parents in a second query in the same session,"
            + " or batch them (@BatchSize, hibernate.default_batch_fetch_size, @Fetch(FetchMode.SUBSELECT)); or select only"
            + " the columns the response needs (counts and averages as aggregates) with DTO queries.";

    /** The cure this call's command or statement calls for, in {@code db}'s dialect for SQL; null when nothing specific is known. */
    /**
     * {@link #fix(String, String, Database)}, or, for a count a pagination plugin runs before every
     * page (its count frames in the cpu profile), that plugin's setting: a MyBatis service paging with
     * PageHelper counted its 300,000-row table per page, half of its request time.
     */
    static String fix(io.culprit.diagnosis.Evidence ev, String kind, String target) {
        if ("sql".equalsIgnoreCase(kind) && target != null && COUNT.matcher(target).find()) {
            double paged = ev.cpuShare(f -> io.culprit.diagnosis.Frames.startsWithAny(f, PAGINATION_COUNTS));
            if (paged > 0) return PAGINATION_FIX;
        }
        return fix(kind, target, ev.database());
    }

    private static final Pattern COUNT = Pattern.compile("^\\s*select\\s+count\\s*\\(", Pattern.CASE_INSENSITIVE);
    /** Where pagination plugins count the whole result before a page: PageHelper, MyBatis-Plus. */
    static final String[] PAGINATION_COUNTS = {"com.github.pagehelper.PageInterceptor.count",
        "com.github.pagehelper.util.ExecutorUtil.executeAutoCount", "com.baomidou.mybatisplus.extension.plugins.inner.PaginationInnerInterceptor.willDoQuery"};
    static final String PAGINATION_FIX = "The pagination plugin counts every row the query matches before each page (PageHelper's"
            + " startPage(pageNum, pageSize), MyBatis-Plus's Page with searchCount): skip the count where the total is not shown"
            + " (startPage(pageNum, pageSize, false); new Page<>(current, size, false)), ask for it on the first page only and"
            + " cache it, or show an estimate (PostgreSQL: pg_class.reltuples); if the total is needed, index the filter it counts.";

    static String fix(String kind, String target, Database db) {
        if (target == null || kind == null) return null;
        switch (kind.toLowerCase(Locale.ROOT)) {
            case "redis": return redis(command(target));
            case "sql": return sql(target.toLowerCase(Locale.ROOT), db);
            case "dns": return dns(target);
            default: return null;
        }
    }

    /** A database-side check for a slow statement: its plan. Null for other calls. */
    static String databaseConfirm(String kind, String target, Database db) {
        if (!"sql".equalsIgnoreCase(kind) || target == null || !sqlBody(target).toLowerCase(Locale.ROOT).startsWith("select")) return null;
        String sql = target.trim();
        return "in " + (db == Database.UNKNOWN ? "the database" : db.label) + ": "
                + db.plan(sql.length() > 200 ? sql.substring(0, 197) + "..." : sql) + " with real values";
    }

    private static String command(String target) {
        String t = target.trim();
        int sp = t.indexOf(' ');
        return (sp < 0 ? t : t.substring(0, sp)).toUpperCase(Locale.ROOT);
    }

    private static String redis(String command) {
        if (command.equals("KEYS")) {
            return "KEYS walks the whole keyspace in one step, and Redis serves no other client until it is done: every"
                    + " request's KEYS queues behind the others'. Keep the keys a request needs in a set of their own"
                    + " (SADD when a key is written, SMEMBERS or SSCAN to read), or iterate with SCAN and a MATCH pattern"
                    + " off the request path; never KEYS in production code.";
        }
        if (REDIS_WHOLE.contains(command)) {
            return command + " returns the whole collection in one reply, O(N) in its size, and Redis serves no other client"
                    + " meanwhile: read a bounded page (SSCAN, HSCAN, ZSCAN with COUNT, LRANGE with a limit), fetch only the"
                    + " fields needed (HMGET), or split the collection into smaller keys.";
        }
        if (REDIS_BLOCKING.contains(command)) {
            return command + " waits on the server until an element arrives or its timeout passes, and holds its connection"
                    + " meanwhile: on a connection every request shares (Lettuce's default, one multiplexed connection, and"
                    + " Spring Data Redis over it) each caller also waits for the blocking commands queued ahead of it. Give"
                    + " blocking commands connections of their own (a pool, Lettuce's ConnectionPoolSupport, or one connection"
                    + " per consumer thread), or consume the list from a background listener and not on the request path.";
        }
        if (command.equals("DEL")) {
            return "DEL frees a large collection synchronously, blocking Redis meanwhile: use UNLINK, which frees it in the background.";
        }
        return null;
    }

    /**
     * A lookup the probes see reached the resolver: the JVM's cache did not answer it. A reverse
     * lookup is cached only on the InetAddress that asked, so one per client address is one per request.
     */
    private static String dns(String target) {
        if (target.startsWith("reverse")) {
            return "Do not turn client addresses into names on the request path: getHostName()/getCanonicalHostName() on a"
                    + " request's address, ServletRequest.getRemoteHost() with Tomcat's enableLookups, a log pattern that"
                    + " prints the host. Log the address (getRemoteAddr()), or resolve names later, off the request path.";
        }
        return "Resolve the name once and keep the address (or the client that holds it): the JVM caches a lookup for"
                + " networkaddress.cache.ttl (30 s by default, 0 disables it) and a failed one for networkaddress.cache.negative.ttl;"
                + " InetAddress.getLocalHost() resolves the machine's own name each time its cache entry expires, so read it once.";
    }

    private static String sql(String sql, Database db) {
        String s = sqlBody(sql).replace("`", "");  // MySQL's quoted names, as jOOQ writes them
        if (!s.startsWith("select")) return null;
        Matcher from = FROM.matcher(s);
        if (!from.find()) return null;
        String table = from.group(1);
        Set<String> columns = new LinkedHashSet<>();
        Matcher f = FILTER.matcher(s.substring(from.end()));
        while (f.find()) columns.add(f.group(1));
        String rest = s.substring(from.end());
        Set<String> wrapped = new LinkedHashSet<>();
        Matcher w = WRAPPED.matcher(rest);
        while (w.find()) wrapped.add(w.group(1) + "(" + w.group(2) + ")");
        boolean like = LIKE.matcher(rest).find();
        // A filter no index serves reads the whole table for any page, the first one too: it comes before
        // the paging (JPA providers page with LIMIT ? OFFSET ? whenever a query sets its first result or its
        // maximum). A blind Payara service (session 48) searched lower(guest_email) = lower(?) a page at a time.
        Matcher offset = OFFSET.matcher(rest);
        if (offset.find() && wrapped.isEmpty()) return offsetPaging(table, rest, db);
        if (!wrapped.isEmpty()) {
            List<String> exprs = new ArrayList<>(wrapped);
            return "Read its plan (" + db.planName() + "): the filter applies a function to the column (" + String.join(", ", exprs)
                    + "), so an index on the column itself cannot serve it; index the expression (" + db.createIndex(table, exprs)
                    + "), or store the value already normalised and compare it as it is." + (like ? leadingWildcard(table, exprs.get(0), db) : "");
        }
        if (columns.isEmpty() && WHERE.matcher(rest).find()) {
            return "Read its plan (" + db.planName() + "): no index serves its filter, so each call reads all of " + table
                    + "; index what the WHERE clause compares, in the form it compares it." + (like ? leadingWildcard(table, "the column", db) : "");
        }
        if (columns.isEmpty()) {
            return "Read its plan (" + db.planName() + "): without a WHERE clause on " + table + " it reads the whole table each time;"
                    + " count or aggregate incrementally, cache the result, or bound it (LIMIT, a time range).";
        }
        List<String> cols = new ArrayList<>(columns);
        return "Read its plan (" + db.planName() + "): a full scan of " + table + " means no index serves the filter; index the"
                + " filtered column" + (cols.size() > 1 ? "s" : "") + " (" + db.createIndex(table, cols)
                + "), or, if an index exists and is not used, compare the column's type with the parameter's and refresh"
                + " the statistics (" + db.refreshStatistics(table) + "); if the plan already uses an index, the time is"
                + " the database's own (a function, a lock, a busy server), not the plan's."
                + (like ? leadingWildcard(table, cols.get(0), db) : "");
    }

    /** A column compared with a parameter: {@code p.recipient_phone = ?}, {@code code in (?}. */
    private static final Pattern COMPARED = Pattern.compile("(?:[a-z_][a-z0-9_]*\\.)?([a-z_][a-z0-9_]*)\\s*(?:=|<>|!=|\\bin\\s*\\()\\s*\\?");
    /** Names of columns that hold text in most schemas, whatever their digits: a phone number, a code, a reference. */
    private static final Pattern TEXT_NAMED = Pattern.compile("(?:^|_)(?:phone|msisdn|mobile|tel|code|sku|email|mail|zip|postcode|postal"
            + "|iban|isbn|ean|upc|ref|reference|tracking|serial|number|no|nr|uuid|guid|token|login|username|barcode|vin|plate|account"
            + "|tax|nip|pesel|ssn|external_id|key|slug|status|type)(?:_|$)");

    /**
     * A filtered column with a text name bound as a number, on MySQL or MariaDB: the database then
     * compares them as numbers, converting the column's value in every row, and no index on the
     * column serves the filter. The SQL text cannot show it ({@code WHERE p.recipient_phone = ?});
     * how the parameter was bound does ({@code calls.binds}, from session 49's agent). A blind
     * jOOQ service bound a phone number as a Long: 2.4 requests/s against 1,648 bound as a string.
     * The column's own type is not known to culprit, hence the name test and the "if" in the
     * advice. Null when no such parameter is seen.
     */
    static String numberOnText(String sql, String binds, Database db) {
        if (binds == null || binds.isEmpty() || (db != Database.MYSQL && db != Database.MARIADB)) return null;
        String s = sqlBody(sql).replace("`", "").toLowerCase(Locale.ROOT);
        String[] kinds = binds.split(",");
        // A collapsed IN list "(?, ...)" hides how many parameters it had: only those before it line up.
        int collapsed = s.indexOf("?, ...");
        Matcher m = COMPARED.matcher(s);
        while (m.find()) {
            int at = m.end() - 1;
            if (collapsed >= 0 && at > collapsed) break;
            int index = (int) s.substring(0, at).chars().filter(c -> c == '?').count();
            String column = m.group(1);
            if (index >= kinds.length || !"number".equals(kinds[index]) || !TEXT_NAMED.matcher(column).find()) continue;
            return "Parameter " + (index + 1) + ", compared with " + column + ", is bound as a number (setLong, setInt or a Number"
                    + " through setObject; an untyped jOOQ field given a long): if " + column + " is a text column (VARCHAR, CHAR),"
                    + " " + db.label + " compares the two as numbers, converting " + column + " in every row, and no index on it"
                    + " can serve the filter (" + db.planName() + " shows type ALL). Bind it as a string, as the column is"
                    + " (setString; jOOQ: field(name(\"" + column + "\"), String.class) or DSL.val(value, String.class)).";
        }
        return null;
    }

    /** Said of a LIKE: its parameter is not in the normalised text, so whether it starts with % is not known. */
    private static String leadingWildcard(String table, String expr, Database db) {
        return " If the LIKE pattern starts with % (a search for a substring), no ordinary index serves it at all:"
                + " use " + db.substringIndex(table, expr) + ", or match a prefix (LIKE 'abc%') where that is what is meant.";
    }

    /**
     * LIMIT … OFFSET: every page reads and throws away the rows before it, and an ORDER BY that no
     * index serves sorts the whole table for each page.
     */
    private static String offsetPaging(String table, String rest, Database db) {
        Matcher order = ORDER.matcher(rest);
        String key = order.find() ? order.group(1) : null;
        return "It pages with OFFSET: the database produces every row before the page and throws them away, so page n"
                + " costs n pages" + (key == null ? "" : ", after sorting " + table + " by " + key + " unless an index serves that order")
                + ". Page by key instead (keyset pagination: WHERE " + (key == null ? "key" : key) + " > the last value of the"
                + " previous page ORDER BY " + (key == null ? "key" : key) + " LIMIT n), with an index on the key"
                + (key == null ? "" : " (" + db.createIndex(table, List.of(key)) + "; add a unique column such as the id to"
                + " the key when " + key + " repeats)") + "; cap how deep a client may page.";
    }
}
