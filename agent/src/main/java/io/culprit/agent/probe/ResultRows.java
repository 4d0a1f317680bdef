package io.culprit.agent.probe;

/**
 * Rows a statement's results gave the code that read them, counted at {@code ResultSet.next()}.
 * The calls table times a statement's execute, which for most drivers returns with every row
 * already read; what the application then does with 20,000 rows (map each to an object, filter
 * most away in Java) shows nowhere else. Counted per thread, with no allocation and no shared
 * write: a thread's execution arms its counter ({@link #executed}), the first result set whose
 * {@code next()} returns afterwards is that statement's, and its rows go to the thread's call log
 * when the reader reaches the end ({@code next()} false) or when its slot is needed again.
 *
 * <p>A pool's or a library's result set (DBCP's delegate, jOOQ's cursor) calls the driver's
 * {@code next()} inside its own: the driver's returns first and takes the statement, and the
 * wrapper, another object, is not counted again: a result set seen for the first time right after a
 * counted row, with no execution between, is such a wrapper. Result sets are told apart by identity hash, so
 * no reference to one is kept. A thread reads a few at once: an outer loop over one result that
 * runs a statement per row (the N+1 shape) keeps counting the outer one, so each thread has a
 * few slots, the least recently read given up first.
 */
final class ResultRows {

    /** Receives a result's rows, on the reading thread: the statement's stats index and the row count. */
    interface Sink {
        void rows(int statsIndex, long rows);
    }

    /** Result sets a thread counts at once. */
    static final int SLOTS = 4;
    /**
     * State words: [ARMED] the armed statement's stats index + 1 (0: none), [CLOCK] rows read so far, [JUST] 1 when the
     * thread's last event was a counted row (no execution since), then the slots.
     */
    private static final int ARMED = 0, CLOCK = 1, JUST = 2, FIRST = 3;
    /** Per slot: the result set's identity hash, its statement's stats index + 1 (0: free), its rows, its last read. */
    private static final int HASH = 0, STATS = 1, ROWS = 2, READ = 3, WIDTH = 4;

    private final PerThread state = new PerThread(() -> new long[FIRST + SLOTS * WIDTH]);
    private final Sink sink;

    ResultRows(Sink sink) {
        this.sink = sink;
    }

    /** A statement of stats {@code statsIndex} executed on this thread: the next new result set read is its. */
    void executed(int statsIndex) {
        long[] s = (long[]) state.get();
        s[ARMED] = statsIndex + 1L;
        s[JUST] = 0;
    }

    /** {@code resultSet.next()} returned {@code more} on this thread. */
    void next(Object resultSet, boolean more) {
        long[] s = (long[]) state.get();
        long hash = System.identityHashCode(resultSet);
        int slot = find(s, hash);
        if (slot < 0) {
            // A wrapper around the result just counted, or a result no statement of ours made.
            if (s[ARMED] == 0 || s[JUST] != 0) return;
            slot = oldest(s);
            flush(s, slot);
            s[slot + HASH] = hash;
            s[slot + STATS] = s[ARMED];
            s[ARMED] = 0;
        }
        s[JUST] = 1;
        if (more) {
            s[slot + ROWS]++;
            s[slot + READ] = ++s[CLOCK];
        } else {
            flush(s, slot);  // read to the end
        }
    }

    private static int find(long[] s, long hash) {
        for (int at = FIRST; at < s.length; at += WIDTH) {
            if (s[at + STATS] != 0 && s[at + HASH] == hash) return at;
        }
        return -1;
    }

    /** A free slot, or the one read least recently. */
    private static int oldest(long[] s) {
        int best = FIRST;
        for (int at = FIRST; at < s.length; at += WIDTH) {
            if (s[at + STATS] == 0) return at;
            if (s[at + READ] < s[best + READ]) best = at;
        }
        return best;
    }

    /** Logs the slot's rows, if it holds a result, and frees it. */
    private void flush(long[] s, int slot) {
        if (s[slot + STATS] == 0) return;
        sink.rows((int) (s[slot + STATS] - 1), s[slot + ROWS]);
        s[slot + STATS] = 0;
        s[slot + ROWS] = 0;
    }
}
