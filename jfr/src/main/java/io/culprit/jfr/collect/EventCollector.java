package io.culprit.jfr.collect;

import io.culprit.jfr.ParkEvent;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;

/**
 * Turns one family of JFR events into catalogue series and tables. The same instance serves a
 * live {@code RecordingStream} and a recording file: events in, evidence out. Callers serialize
 * {@link #accept} and the output methods (see {@code JfrEvidence}).
 */
public interface EventCollector {

    /** JFR event type names this collector reads. */
    Set<String> events();

    void accept(RecordedEvent e);

    /** Series covering the observation, in 1 s windows. */
    default List<Series> series(Observation o) { return List.of(); }

    /** Ranked tables over the same observation. */
    default List<Table> tables(Observation o) { return List.of(); }

    static double ms(Duration d) {
        return d == null ? 0 : d.toNanos() / 1e6;
    }

    /**
     * How long the event's thread waited: JFR's duration, or for the park tracer's event (committed
     * once the wait is over, see {@code ParkEvent}) its {@code waited} field.
     */
    static Duration waited(RecordedEvent e) {
        return e.getEventType().getName().equals(ParkEvent.NAME) ? Duration.ofNanos(e.getLong("waited")) : e.getDuration();
    }

    /** When the wait began: the event's start, or for the park tracer's event its end less the wait. */
    static Instant waitStart(RecordedEvent e) {
        return e.getEventType().getName().equals(ParkEvent.NAME) ? e.getEndTime().minus(waited(e)) : e.getStartTime();
    }

    /** Whether the event's thread is an event loop's ({@code EventLoops}): its waits stall every connection the loop serves. */
    static boolean onEventLoop(RecordedEvent e) {
        return e.getThread() != null && io.culprit.model.EventLoops.isEventLoopThread(e.getThread().getJavaName());
    }

    static long epochMs(RecordedEvent e) {
        return e.getStartTime().toEpochMilli();
    }
}
