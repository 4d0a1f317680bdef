package io.culprit.agent.probe;

/**
 * How a prepared statement's parameters were bound: as a number ({@code setLong}, {@code setInt},
 * {@code setBigDecimal}, a Number through {@code setObject}), as a string ({@code setString}), or
 * otherwise. The SQL text cannot show it, and it decides whether an index serves the statement:
 * MySQL and MariaDB compare a VARCHAR column with a number as numbers, converting every row, so
 * {@code WHERE phone = ?} bound with {@code setLong} scans the table (a blind jOOQ service,
 * session 49: 2.4 requests/s against 1,648). Per thread, two bits per parameter (the first 31),
 * taken by the statement's next execution: no allocation, no shared write.
 */
final class BindKinds {

    static final long NUMBER = 1, STRING = 2, OTHER = 3;
    /** Parameters past this index are not recorded. */
    static final int MAX_INDEX = 31;

    private final PerThread bound = new PerThread(() -> new long[1]);

    /** Parameter {@code index} (1-based, as JDBC counts) was bound as {@code kind} on this thread. */
    void bind(Object index, long kind) {
        if (!(index instanceof Integer)) return;
        int i = (Integer) index;
        if (i < 1 || i > MAX_INDEX) return;
        long[] b = (long[]) bound.get();
        int shift = 2 * (i - 1);
        b[0] = (b[0] & ~(3L << shift)) | (kind << shift);
    }

    /** A value bound through {@code setObject}: its kind by its class. */
    static long kindOf(Object value) {
        return value instanceof Number ? NUMBER : value instanceof String ? STRING : OTHER;
    }

    /** This thread's bindings since the last take, cleared: 0 when none. */
    long take() {
        long[] b = (long[]) bound.get();
        long kinds = b[0];
        b[0] = 0;
        return kinds;
    }

    /** "number,string,?" by parameter index, "?" for one not recorded; null for none. */
    static String describe(long kinds) {
        if (kinds == 0) return null;
        StringBuilder s = new StringBuilder();
        int last = (63 - Long.numberOfLeadingZeros(kinds)) / 2;
        for (int i = 0; i <= last; i++) {
            long k = (kinds >>> (2 * i)) & 3;
            if (i > 0) s.append(',');
            s.append(k == NUMBER ? "number" : k == STRING ? "string" : k == OTHER ? "other" : "?");
        }
        return s.toString();
    }
}
