package io.culprit.agent.jfr;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.culprit.jfr.CulpritSettings;
import io.culprit.jfr.ForeignEvents;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import jdk.jfr.Recording;

/**
 * JFR's leak profiler ({@code jdk.OldObjectSample}), turned on only once the heap looks like it
 * leaks. The profiler walks the allocating thread's stack at every allocation outside a TLAB and at
 * every TLAB refill: a service that builds large arrays per request (a string grown with +=, a big
 * buffer) pays that walk on most of its allocations, and lost 55 % of its throughput to it
 * (docs/BENCH.md, session 21). So culprit's recording leaves the profiler off and this watch reads
 * the heap after each collection (GC notifications, delivered on the JDK's own notification
 * thread: no thread of ours); when the lowest of the last few values has risen above the lowest of
 * the first few by what {@link Trigger} calls a leak, it starts a second recording with only the
 * leak profiler. A leak keeps allocating what it keeps, so samples from then on still name its site.
 */
final class LeakWatch implements NotificationListener {
    static final String NAME = "culprit-leaks";

    private final Trigger trigger;
    private final Set<String> heapPools = new HashSet<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private volatile Recording leaks;
    private volatile String reason;
    /** Set by {@link #stopInto} and {@link #close}: no profiler starts after them. */
    private volatile boolean closed;

    private LeakWatch(Trigger trigger) {
        this.trigger = trigger;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) heapPools.add(p.getName());
        }
    }

    /** Starts watching: every collector's notifications from now on. */
    static LeakWatch start() {
        return start(Trigger.forHeap(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax()));
    }

    static LeakWatch start(Trigger trigger) {
        LeakWatch w = new LeakWatch(trigger);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                NotificationEmitter e = (NotificationEmitter) gc;
                e.addNotificationListener(w, null, null);
                w.emitters.add(e);
            }
        }
        return w;
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (leaks != null || closed || !GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
        try {
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            long used = 0;
            for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                if (heapPools.contains(pool.getKey())) used += pool.getValue().getUsed();
            }
            String why = trigger.afterGc(used);
            if (why != null) startProfiler(why);
        } catch (RuntimeException e) {
            // The JDK's notification thread is the service's, not ours: nothing may escape onto it.
        }
    }

    /** Under this object's lock, so that a detach cannot miss a recording started meanwhile. */
    private synchronized void startProfiler(String why) {
        if (leaks != null || closed) return;
        Map<String, String> settings = ForeignEvents.off(CulpritSettings.leakProfiler());
        Recording r = new Recording(settings);
        r.setName(NAME);
        r.setToDisk(true);
        try {
            r.start();
            ForeignEvents.watch(r, settings);
        } catch (RuntimeException e) {
            r.close();
            return;  // the evidence is lost, not the service: heap-leak then names no site
        }
        reason = why;
        leaks = r;
    }

    /** What the watch did, for the user. */
    String describe() {
        return leaks == null ? "leak profiler off (the heap after GC has not grown)" : "leak profiler on: " + reason;
    }

    /** True once the leak profiler runs. */
    boolean profiling() {
        return leaks != null;
    }

    /** Stops listening; the leak profiler's recording, if any, keeps running until {@link #stopInto}. */
    void unwatch() {
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(this);
            } catch (ListenerNotFoundException ignored) {
                // already gone
            }
        }
        emitters.clear();
    }

    /**
     * Stops the leak profiler and appends its recording to {@code out} (a JFR file is a sequence of
     * self-contained chunks, so the result reads as one recording). Call it after every other
     * recording of culprit's has stopped: on JDK 17 the samples, written at the stop, lose their
     * stacks when another recording is still running.
     */
    void stopInto(Path out) throws IOException {
        Recording r;
        synchronized (this) {
            closed = true;
            r = leaks;
        }
        unwatch();
        if (r == null) return;
        Path part = Files.createTempFile("culprit-leaks", ".jfr");
        try {
            r.stop();
            r.dump(part);
            try (OutputStream os = Files.newOutputStream(out, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                Files.copy(part, os);
            }
        } finally {
            ForeignEvents.forget(r);
            r.close();
            Files.deleteIfExists(part);
        }
    }

    /** Ends everything without writing: detach. */
    void close() {
        Recording r;
        synchronized (this) {
            closed = true;
            r = leaks;
        }
        unwatch();
        if (r != null) {
            ForeignEvents.forget(r);
            r.close();
        }
    }

    /**
     * The decision, apart from the JVM so it can be tested: the lowest heap after GC over the last
     * {@link #WINDOW} collections against the lowest over the first {@link #WINDOW}, with the growth
     * heap-leak asks for (8 MB and 5 % of the maximum heap). A healthy service's floor drifts by a few
     * MB as survivors are promoted; a false start only costs what the profiler costs.
     */
    static final class Trigger {
        static final int WINDOW = 3;
        static final long MIN_GROWTH = 8L << 20;
        static final double MIN_GROWTH_SHARE = 0.05;

        /** Collections that each rose over the one before are a trend sooner: a service that collects seldom has few. */
        static final int RISING = 4;

        private final long minGrowth;
        private final long[] last = new long[WINDOW];
        private long firstFloor = Long.MAX_VALUE;
        private int seen;
        /** The value before this run of rises began, the last value, and how many values the run holds. */
        private long risingFrom, previous = Long.MAX_VALUE;
        private int risingCount;

        Trigger(long minGrowthBytes) {
            minGrowth = minGrowthBytes;
        }

        static Trigger forHeap(long maxHeapBytes) {
            return new Trigger(Math.max(MIN_GROWTH, maxHeapBytes > 0 ? (long) (MIN_GROWTH_SHARE * maxHeapBytes) : 0));
        }

        /** The reason to start the leak profiler after this collection, or null. */
        synchronized String afterGc(long usedAfter) {
            if (seen < WINDOW) firstFloor = Math.min(firstFloor, usedAfter);
            last[seen % WINDOW] = usedAfter;
            seen++;
            if (usedAfter > previous) {
                risingCount++;
            } else {
                risingFrom = usedAfter;
                risingCount = 1;
            }
            previous = usedAfter;
            if (risingCount >= RISING && usedAfter - risingFrom >= minGrowth) {
                return "the heap after GC rose " + ((usedAfter - risingFrom) >> 20) + " MB over " + risingCount + " collections, each above the last";
            }
            if (seen < 2 * WINDOW) return null;
            long floor = Long.MAX_VALUE;
            for (long v : last) floor = Math.min(floor, v);
            long growth = floor - firstFloor;
            return growth >= minGrowth ? "the heap after GC rose " + (growth >> 20) + " MB over " + seen + " collections" : null;
        }
    }
}
