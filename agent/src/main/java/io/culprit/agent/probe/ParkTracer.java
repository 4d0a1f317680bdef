package io.culprit.agent.probe;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.Installation;
import io.culprit.agent.jfr.JfrBoot;
import io.culprit.agent.instrument.Instrumenter;
import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.Plan;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.jfr.CulpritSettings;
import io.culprit.jfr.ParkEvent;
import io.culprit.jfr.collect.LockCollector;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jdk.jfr.FlightRecorder;

/**
 * Lock parks for culprit's recordings, without JFR's {@code jdk.ThreadPark}. JFR records every
 * park over its threshold, and on a server most parks are idle pool workers waiting for the next
 * task: 470 a second on the overhead bench's target, 1,360 on the lab at 2,000 req/s, each an
 * event with a stack walk in the parked thread, and the largest part of what culprit's recording
 * costs (docs/BENCH.md). JFR cannot filter parks by what they wait on; this tracer can. It weaves
 * {@code LockSupport}'s park methods that take a blocker and commits a {@link ParkEvent} only
 * for a blocker the {@code locks} table counts ({@link LockCollector#isLock}: locks, semaphores,
 * latches and other synchronizers, so the hand-off waits of seed 5's timer lock stay in) that
 * waited at least {@link #THRESHOLD_NS}. A timed condition wait (Tomcat's worker in
 * {@code queue.poll(timeout)}) costs one class lookup; from JDK 17 an untimed one
 * ({@code queue.take()}) parks without a blocker argument and is not seen at all.
 *
 * <p>Shared by the recordings that need parks ({@code jfr start}, the live stream of
 * {@code collect start}): woven on the first {@link #lease}, restored when the last lease closes,
 * at {@code reset} (the recording then has no parks: the lease says so) and at detach.
 */
public final class ParkTracer {

    /** culprit.jfc's threshold for {@code jdk.ThreadPark}: the timer lock's waits last 1-5 ms. */
    static final long THRESHOLD_NS = 1_000_000L;
    static final String LOCK_SUPPORT = "java.util.concurrent.locks.LockSupport";

    private static int leases;
    /** Counts weaves: a lease of an earlier one (removed by reset, then woven afresh) no longer counts. */
    private static int generation;
    private static Installation installation;
    private static boolean hooked;
    private static boolean registered;

    private ParkTracer() { }

    /** One recording's use of the tracer; {@link #close} ends it. */
    public static final class Lease implements AutoCloseable {
        private final boolean traced;
        private final int weave;
        private boolean closed;

        private Lease(boolean traced, int weave) {
            this.traced = traced;
            this.weave = weave;
        }

        /**
         * True while lock parks come as {@link ParkEvent}s; false when the tracer could not be
         * woven (the recording keeps {@code jdk.ThreadPark}) or reset has removed it since.
         */
        public boolean traced() {
            synchronized (ParkTracer.class) {
                return traced && weave == generation && live();
            }
        }

        /** culprit's JFR settings for this lease's recording: parks from the tracer when it is woven. */
        public Map<String, String> settings() {
            return traced() ? CulpritSettings.withTracedParks(CulpritSettings.settings()) : CulpritSettings.settings();
        }

        /** Where this lease's recording gets its lock parks from, for status lines. */
        public String source() {
            if (!traced) return "JFR's jdk.ThreadPark";
            return traced() ? "culprit's park tracer" : "none since reset removed culprit's park tracer";
        }

        @Override
        public void close() {
            synchronized (ParkTracer.class) {
                if (closed) return;
                closed = true;
                if (traced && weave == generation && --leases == 0) unweave();
            }
        }
    }

    /** Weaves the tracer if it is not yet; never throws: a lease that is not traced is the fallback. */
    public static synchronized Lease lease(Instrumentation inst) {
        if (leases > 0 && live()) {
            leases++;
            return new Lease(true, generation);
        }
        // Nothing woven, or reset removed it under running leases: those keep no parks, this one weaves afresh.
        leases = 0;
        unweave();
        try {
            weave(inst);
        } catch (CommandException | RuntimeException | LinkageError e) {
            unweave();
            return new Lease(false, generation);
        }
        leases = 1;
        return new Lease(true, ++generation);
    }

    private static boolean live() {
        Installation i = installation;
        return i != null && !i.closed();
    }

    private static void weave(Instrumentation inst) throws CommandException {
        if (!FlightRecorder.isAvailable()) throw new CommandException("no flight recorder");
        JfrBoot.ensure();
        // Registered before the weave: the first park to commit must not load or register a class.
        FlightRecorder.register(ParkEvent.class);
        registered = true;
        // Only loaded classes can be woven: the JDK's queues are loaded here if the service has not used them yet.
        List<Hook> hooks = List.of(new LockParks("park", "(Ljava/lang/Object;)"),
                new LockParks("parkNanos", "(Ljava/lang/Object;J)"), new LockParks("parkUntil", "(Ljava/lang/Object;J)"),
                new QueuePuts(java.util.concurrent.ArrayBlockingQueue.class.getName()),
                new QueuePuts(java.util.concurrent.LinkedBlockingQueue.class.getName()));
        Plan plan = Plan.forProbes();
        List<Integer> ids = new ArrayList<>();
        try {
            for (Hook h : hooks) {
                for (MethodTarget t : h.targets(inst)) {
                    // In-process tests without the Bridge on the boot path: JDK code could not link to it.
                    if (!Modules.seesBridge(t.type)) throw new CommandException("the Bridge is not on the boot class path");
                    Modules.letReadBridge(inst, t.type);
                    int id = Dispatcher.INSTANCE.register(h);
                    ids.add(id);
                    plan.advise(t, id, h.reads);
                }
            }
            if (ids.size() != hooks.size()) throw new CommandException("LockSupport's park methods or the queues' put not all found");
            installation = Instrumenter.install(inst, plan, ids);
        } catch (CommandException | RuntimeException e) {
            Dispatcher.INSTANCE.unregisterAll(ids);
            throw e;
        }
        if (!hooked) {
            hooked = true;
            Lifecycle.addShutdownHook(() -> {
                synchronized (ParkTracer.class) {
                    leases = 0;
                    generation++;
                    unweave();
                }
            });
        }
    }

    private static void unweave() {
        Installation i = installation;
        installation = null;
        if (i != null) i.close();
        // Registered classes are held by JFR: left registered, the event would pin the agent's loader.
        if (registered) FlightRecorder.unregister(ParkEvent.class);
        registered = false;
    }

    /** One of LockSupport's park methods that take a blocker. */
    static final class LockParks extends Hook {
        /** Per blocker class: a lock the {@code locks} table counts. Weakly held by the JDK. */
        private static final ClassValue<Boolean> LOCKS = new ClassValue<Boolean>() {
            @Override
            protected Boolean computeValue(Class<?> type) {
                return LockCollector.isLock(type.getName());
            }
        };

        LockParks(String method, String descriptorPrefix) {
            super(LOCK_SUPPORT, method, descriptorPrefix, Hook.TIMED | Hook.ARG0);
        }

        @Override
        public long probeEnter(int id, Object self, Object blocker) {
            return blocker != null && LOCKS.get(blocker.getClass()) ? System.nanoTime() : 0L;
        }

        @Override
        public void probeExit(int id, long start, Object self, Object blocker, Object arg1, Object returned, Throwable thrown) {
            if (start == 0L) return;
            long waited = System.nanoTime() - start;
            if (waited < THRESHOLD_NS) return;
            // One small object per wait of a millisecond or more, never on a path that did not wait.
            ParkEvent e = new ParkEvent();
            e.parkedClass = blocker.getClass();
            e.waited = waited;
            e.commit();
        }
    }

    /**
     * {@code put} of a bounded queue, which waits for room when the queue is full: producers held up
     * by a slower consumer (logback's AsyncAppender with neverBlock=false, a hand-made pipeline). From
     * JDK 17 that wait parks without a blocker, so {@link LockParks} cannot see it; it is committed
     * here, with the queue's class as what was parked on, when it lasted {@link #THRESHOLD_NS}. A put
     * with room costs two clock reads.
     */
    static final class QueuePuts extends Hook {
        QueuePuts(String queue) {
            super(queue, "put", "(Ljava/lang/Object;)", Hook.TIMED | Hook.SELF);
        }

        @Override
        public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
            long waited = System.nanoTime() - start;
            if (waited < THRESHOLD_NS || self == null) return;
            ParkEvent e = new ParkEvent();
            e.parkedClass = self.getClass();
            e.waited = waited;
            e.commit();
        }
    }
}
