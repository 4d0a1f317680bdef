package io.culprit.agent.probe;

/**
 * Which SQL text a prepared statement was made from, remembered on the thread that prepared it:
 * the last {@link #SLOTS} statements per thread, matched by identity. JDBC code prepares and
 * executes on one thread (JdbcTemplate, JPA, MyBatis), so a per-thread memory needs no lock on
 * the request path, unlike one map shared by every request thread. A statement executed on
 * another thread, or after SLOTS newer ones, is reported as "(prepared statement)". Up to SLOTS
 * closed statements per thread stay referenced until overwritten: bounded, and small objects.
 *
 * <p>The per-thread state ({@link PerThread}, a ThreadLocal when its table slot is taken) holds
 * only a JDK type (Object[]): an agent class in a thread-local would keep the
 * agent's class loader alive on application threads after detach.
 */
final class Prepared {

    static final int SLOTS = 8;
    /**
     * Per thread: slots 0..SLOTS-1 hold statements, SLOTS..2*SLOTS-1 their text, and the last a
     * long[1], the next slot to overwrite (a rotating count): one lookup per put or get.
     */
    private final PerThread recent = new PerThread(() -> {
        Object[] r = new Object[2 * SLOTS + 1];
        r[2 * SLOTS] = new long[1];
        return r;
    });

    void put(Object statement, String sql) {
        Object[] r = (Object[]) recent.get();
        long[] c = (long[]) r[2 * SLOTS];
        // A driver's prepareStatement(sql) that calls its own overload returns the statement twice: one slot.
        if (c[0] > 0 && r[(int) ((c[0] - 1) % SLOTS)] == statement) return;
        int i = (int) (c[0]++ % SLOTS);
        r[i] = statement;
        r[SLOTS + i] = sql;
    }

    String get(Object statement) {
        Object[] r = (Object[]) recent.get();
        for (int i = 0; i < SLOTS; i++) {
            if (r[i] == statement) return (String) r[SLOTS + i];
        }
        return null;
    }
}
