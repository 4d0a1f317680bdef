package io.culprit.agent.probe;

import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Normalizes statements and URLs so that calls differing only in literal values group together:
 * {@code WHERE id = 42} and {@code WHERE id = 43} are one target, as in pg_stat_statements.
 */
final class SqlText {

    private static final Pattern STRING = Pattern.compile("'(?:[^']|'')*'");
    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.])-?\\d+(?:\\.\\d+)?(?![\\w.])");
    private static final Pattern SPACE = Pattern.compile("\\s+");
    /**
     * An IN list of placeholders, any length: {@code findAllById} or a named {@code :ids} expands to
     * as many {@code ?} as the list has elements, and a cart of 3 and one of 40 are one statement
     * (PostgreSQL 18's pg_stat_statements squashes such lists too). Split by length, a statement that
     * took most of request time read as dozens of targets each too small to name.
     */
    private static final Pattern IN_LIST = Pattern.compile("(?i)\\b(in)\\s*\\(\\s*\\?(?:\\s*,\\s*\\?)*\\s*\\)");
    /** The rows of a multi-row insert: the first row and "...". */
    private static final Pattern ROWS = Pattern.compile("(\\(\\s*\\?(?:\\s*,\\s*\\?)*\\s*\\))(?:\\s*,\\s*\\1)+");
    private static final Pattern PATH_ID = Pattern.compile("/\\d+(?=/|$|\\?)");
    private static final int MAX = 400;
    /**
     * Raw text → normalized, because three regular expressions per executed statement cost more
     * than the probe may. Applications run a small set of statement texts; one that builds its
     * SQL with literals inside fills the cache, after which new texts are normalized uncached.
     */
    private static final ConcurrentHashMap<String, String> CACHE = new ConcurrentHashMap<>();
    private static final int CACHED = 2_048;

    private SqlText() { }

    /** {@link #normalize}, remembered per distinct text. */
    static String normalizeCached(String sql) {
        if (sql == null) return "(unknown)";
        String n = CACHE.get(sql);
        if (n != null) return n;
        n = normalize(sql);
        if (CACHE.size() < CACHED) CACHE.putIfAbsent(sql, n);
        return n;
    }

    static String normalize(String sql) {
        if (sql == null) return "(unknown)";
        String s = STRING.matcher(sql).replaceAll("?");
        s = NUMBER.matcher(s).replaceAll("?");
        s = SPACE.matcher(s).replaceAll(" ").trim();
        s = IN_LIST.matcher(s).replaceAll("$1 (?, ...)");
        s = ROWS.matcher(s).replaceAll("$1, ...");
        return s.length() > MAX ? s.substring(0, MAX) + "..." : s;
    }

    /** Drops the query string and turns numeric path segments into {n}. */
    static String normalizeUrl(String url) {
        int q = url.indexOf('?');
        String s = q < 0 ? url : url.substring(0, q);
        return PATH_ID.matcher(s).replaceAll("/{n}");
    }
}
