package io.culprit.jfr;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.CaseFile;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import jdk.jfr.consumer.RecordedEvent;

/**
 * Live collectors: a {@code jdk.jfr.consumer.RecordingStream} with culprit's settings feeding a
 * {@link JfrEvidence}. {@code start}, then {@code writeTo} as often as wanted (each write is the
 * cumulative picture since start), then {@code stop}.
 *
 * <p>RecordingStream is JDK 14+ while this module compiles for 11 (targets run 11+), so it is
 * reached reflectively; on 11-13 {@link #start} fails with a one-line reason.
 */
public final class LiveJfr implements AutoCloseable {
    private final JfrEvidence evidence = new JfrEvidence();
    private final Object stream;
    private volatile long startMs;
    private final Object clock = new Object();
    private long latestEventMs;
    private volatile long endMs = -1;
    /** Events JFR emits at a chunk's start or end (configuration, JVM information): stamped then, read whenever. */
    private final Set<String> chunkEvents = new HashSet<>();

    private LiveJfr(Object stream, long startMs) {
        this.stream = stream;
        this.startMs = startMs;
    }

    /** Every collector, culprit's full settings. */
    public static LiveJfr start() {
        return start(CulpritSettings.settings());
    }

    /** With the given JFR settings, e.g. {@code CulpritSettings.only(Set.of("jdk.JavaExceptionThrow"))}. */
    public static LiveJfr start(Map<String, String> settings) {
        Object rs;
        Map<String, String> own = ForeignEvents.off(settings);
        try {
            Class<?> c = Class.forName("jdk.jfr.consumer.RecordingStream");
            rs = c.getConstructor().newInstance();
            c.getMethod("setSettings", Map.class).invoke(rs, own);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("live JFR streaming needs JDK 14+, this JVM is " + System.getProperty("java.version"));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot open a JFR stream: " + e, e);
        }
        LiveJfr live = new LiveJfr(rs, System.currentTimeMillis());
        settings.forEach((k, v) -> {
            if (k.endsWith("#period") && v.endsWith("Chunk")) live.chunkEvents.add(k.substring(0, k.indexOf('#')));
        });
        Consumer<RecordedEvent> sink = live::accept;
        try {
            // One handler per event type a collector reads, not one for all: the stream's parser
            // then skips what nobody reads (settings, recording metadata) instead of building it,
            // and that parsing runs on the target's own cores.
            Method onEvent = rs.getClass().getMethod("onEvent", String.class, Consumer.class);
            for (String type : live.evidence.eventTypes()) onEvent.invoke(rs, type, sink);
            // After each flush (about a second): event types a library registered meanwhile go off too.
            rs.getClass().getMethod("onFlush", Runnable.class).invoke(rs, (Runnable) ForeignEvents::recheck);
            ForeignEvents.watch(rs, own);
            rs.getClass().getMethod("startAsync").invoke(rs);
            // Starting can take seconds on a busy machine: the observation begins once recording has.
            live.startMs = System.currentTimeMillis();
        } catch (ReflectiveOperationException e) {
            live.close();
            throw new IllegalStateException("cannot start the JFR stream: " + e.getCause(), e);
        }
        return live;
    }

    private void accept(RecordedEvent e) {
        long end = endMs;
        // While stop() waits for the stream to catch up, later events keep coming: they are outside the window.
        // So are those that ended while start() was still starting (seconds on a busy machine): the
        // rates' denominator is the window, and side counters (ClassLoadingCommand's) open with it.
        boolean inWindow = (end < 0 || e.getStartTime().toEpochMilli() <= end)
                && (e.getEndTime().toEpochMilli() >= startMs || chunkEvents.contains(e.getEventType().getName()));
        if (inWindow) evidence.accept(e);
        synchronized (clock) {
            latestEventMs = Math.max(latestEventMs, e.getEndTime().toEpochMilli());
            clock.notifyAll();
        }
    }

    public JfrEvidence evidence() {
        return evidence;
    }

    /** From start to now (or to stop), with the request count when the caller knows it. */
    public Observation observation(long requests) {
        long end = endMs > 0 ? endMs : System.currentTimeMillis();
        return new Observation(startMs, Math.max(startMs + 1, end), requests);
    }

    public void writeTo(CaseFile cf, long requests) {
        evidence.writeTo(cf, observation(requests));
    }

    /**
     * Ends the observation now and stops the stream once everything up to now has arrived. JFR
     * delivers in flushes about a second apart; the stream has caught up when it delivers an event
     * stamped after the end (the 1 s periodic events guarantee one). JDK 20+ also has
     * {@code stop()}, which flushes by itself. Gives up after {@code timeoutMs}.
     */
    public void stop(long timeoutMs) throws InterruptedException {
        if (endMs > 0) return;
        endMs = System.currentTimeMillis();
        long deadline = System.currentTimeMillis() + timeoutMs;
        synchronized (clock) {
            while (latestEventMs < endMs) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) break;
                clock.wait(left);
            }
        }
        try {
            stream.getClass().getMethod("stop").invoke(stream);
        } catch (ReflectiveOperationException e) {
            // JDK 14-19: no stop(); close() below ends the stream
        }
        close();
    }

    @Override
    public void close() {
        ForeignEvents.forget(stream);
        try {
            ((AutoCloseable) stream).close();
        } catch (Exception ignored) {
            // closing a stream that failed to start
        }
    }
}
