package io.culprit.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A thread parked on a lock (a {@code ReentrantLock}, a read-write lock, a semaphore, a
 * {@code CountDownLatch}: any blocker the {@code locks} table counts) for at least the agent's
 * threshold. The agent's park tracer commits it in place of JFR's {@code jdk.ThreadPark}, which
 * cannot leave out idle pool workers' waits for work: on a server those are most parks, and each
 * costs an event with a stack walk in the parked thread. Committed after the wait, so the wait is
 * a field ({@link #waited}), not the event's duration, and the event's time is the wait's end.
 * Off unless a recording enables it: a user's own recording does not get culprit's events.
 */
@Name(ParkEvent.NAME)
@Label("Lock Park")
@Category("culprit")
@Description("A thread parked on a lock-like blocker, recorded by culprit's park tracer")
@StackTrace(true)
@Enabled(false)
public final class ParkEvent extends Event {
    public static final String NAME = "io.culprit.LockPark";

    /** Named as in {@code jdk.ThreadPark}, so the collectors read both alike. */
    @Label("Class Parked On")
    public Class<?> parkedClass;

    @Label("Waited")
    @Timespan(Timespan.NANOSECONDS)
    public long waited;
}
