package io.culprit.agent.probe;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Per-thread logs of completed events, folded by whoever reads them. A request thread writes its
 * event into a ring of its own and publishes it with one release store: no atomic read-modify-write
 * and no cache line written by another request thread. Shared recorders (an atomic increment of
 * one counter per value, on every thread) and counters make request threads wait for each other's
 * cache lines, more so the more cores run them. The reader (the sampler once a second, a command
 * now and then) drains every ring under the owner's fold lock and hands the records to its
 * {@link Sink} in one batch.
 *
 * <p>A ring is a {@code long[]}: {@code [0]} records written (released by its thread), {@code [1]}
 * records read (released by the reader), then {@code userWords} words its thread keeps for itself
 * ({@link #USER} on), then {@link #CAPACITY} records of {@link #WORDS} longs. A thread that finds
 * its ring full drains it itself, under the lock; that takes ~{@value #CAPACITY} events a second
 * on one thread (4 KB a ring, made at a thread's first event). Rings hold longs only: a ring
 * left in an application thread's ThreadLocal after detach keeps no agent class alive.
 *
 * <p>A virtual thread gets a light ring: its own words only, no records. A container on virtual
 * threads starts one per request, and a ring each (4 KB made, registered and dropped again per
 * request) cost a virtual-thread service ~5 % of its CPU and, where no reader drained them
 * during a collection, kept every request's ring until the end (115 MB after 30,000 requests,
 * docs/BENCH.md, session 24). Its records go to one of a few shared stripes instead, each written
 * under its own monitor: one writer at a time, so the reader's protocol is the same as for a
 * thread's own ring.
 */
final class EventLog {

    /** Longs per record. */
    static final int WORDS = 4;
    static final int CAPACITY = 128;
    /** Index of a ring's first word kept for its thread's own use. */
    static final int USER = 2;
    private static final VarHandle AT = MethodHandles.arrayElementVarHandle(long[].class);

    /** Receives drained records, under the lock, in the order of the rings (each ring's in its own order). */
    interface Sink {
        /** {@code records} holds {@code count} records of {@link #WORDS} longs from index 0. */
        void fold(long[] records, int count);
    }

    private final Object lock;
    private final Sink sink;
    private final int userWords;
    /** {WeakReference to the thread, its ring}: the reader's way to every ring. */
    private final CopyOnWriteArrayList<Object[]> rings = new CopyOnWriteArrayList<>();
    /** Rings virtual threads write to, made at the first such write; registered in {@link #rings} for good. */
    private volatile long[][] stripes;
    /** The reader's batch, reused; guarded by {@link #lock}. */
    private long[] batch = new long[CAPACITY * WORDS];
    /** Records in the batch not yet handed to the sink; guarded by {@link #lock}. */
    private int pending;

    /**
     * @param lock      guards the sink's state; every drain holds it
     * @param userWords words after the header each ring keeps for its thread
     */
    EventLog(Object lock, Sink sink, int userWords) {
        this.lock = lock;
        this.sink = sink;
        this.userWords = userWords;
    }

    /** A ring for the calling thread, known to the reader from now on; a light one for a virtual thread. */
    long[] newRing() {
        return newRing(VirtualThreads.is(Thread.currentThread()));
    }

    long[] newRing(boolean light) {
        if (light) return new long[USER + userWords];
        long[] ring = new long[USER + userWords + CAPACITY * WORDS];
        rings.add(new Object[] {new WeakReference<>(Thread.currentThread()), ring});
        return ring;
    }

    /** Whether {@code ring} holds no records: a virtual thread's, whose records go to a stripe. */
    boolean isLight(long[] ring) {
        return ring.length == USER + userWords;
    }

    /** Appends one record for the thread that owns {@code ring}. */
    void put(long[] ring, long a, long b, long c, long d) {
        if (!isLight(ring)) {
            append(ring, a, b, c, d);
            return;
        }
        long[] stripe = stripe();
        synchronized (stripe) {  // short and never blocking: a pinned virtual thread (JDK 21) lets go at once
            append(stripe, a, b, c, d);
        }
    }

    private long[] stripe() {
        long[][] all = stripes;
        if (all == null) all = makeStripes();
        return all[(int) Thread.currentThread().getId() & (all.length - 1)];
    }

    private synchronized long[][] makeStripes() {
        if (stripes != null) return stripes;
        // Twice the CPUs, a power of two: writers on different carriers seldom meet on a stripe.
        int n = Integer.highestOneBit(Math.max(1, 2 * Runtime.getRuntime().availableProcessors() - 1)) << 1;
        long[][] all = new long[n][];
        for (int i = 0; i < n; i++) {
            all[i] = new long[USER + userWords + CAPACITY * WORDS];
            rings.add(new Object[] {null, all[i]});  // no thread: never dropped
        }
        stripes = all;
        return all;
    }

    /** Appends one record to {@code ring}, which only the calling thread writes now. */
    private void append(long[] ring, long a, long b, long c, long d) {
        long written = ring[0];
        if (written - (long) AT.getAcquire(ring, 1) >= CAPACITY) {
            synchronized (lock) {
                drain(ring);
                flush();
            }
        }
        int at = USER + userWords + (int) (written & (CAPACITY - 1)) * WORDS;
        ring[at] = a;
        ring[at + 1] = b;
        ring[at + 2] = c;
        ring[at + 3] = d;
        AT.setRelease(ring, 0, written + 1);
    }

    /** Hands every ring's unread records to the sink; rings of threads that died are dropped after. */
    void drainAll() {
        synchronized (lock) {
            for (Object[] e : rings) {
                // Dead before the drain, so its last record is in it: a thread's writes happen
                // before another thread sees it not alive.
                Thread t = e[0] == null ? null : (Thread) ((WeakReference<?>) e[0]).get();
                boolean dead = e[0] != null && (t == null || !t.isAlive());
                drain((long[]) e[1]);
                if (dead) rings.remove(e);
            }
            flush();
        }
    }

    /** Rings the reader drains: platform threads' own (until they end) and the stripes. */
    int ringCount() {
        return rings.size();
    }

    /** Rings whose word {@code index} (one of their thread's own) is above zero now: a racy read. */
    int countAbove(int index) {
        int n = 0;
        for (Object[] e : rings) if (((long[]) e[1])[index] > 0) n++;
        return n;
    }

    /** Copies {@code ring}'s unread records into the batch; under the lock. */
    private void drain(long[] ring) {
        long written = (long) AT.getAcquire(ring, 0);
        long read = ring[1];
        if (written == read) return;
        int need = (pending + (int) (written - read)) * WORDS;
        if (need > batch.length) batch = Arrays.copyOf(batch, Math.max(need, batch.length * 2));
        int base = USER + userWords;
        for (long r = read; r < written; r++) {
            System.arraycopy(ring, base + (int) (r & (CAPACITY - 1)) * WORDS, batch, pending * WORDS, WORDS);
            pending++;
        }
        AT.setRelease(ring, 1, written);
    }

    private void flush() {
        if (pending == 0) return;
        int n = pending;
        pending = 0;
        sink.fold(batch, n);
    }
}
