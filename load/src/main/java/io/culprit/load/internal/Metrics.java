package io.culprit.load.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * What one worker's I/O thread records and the engine thread reads. One instance per worker, so
 * every field has a single writer: recorders are {@link SingleWriterRecorder}s swapped by the reader
 * at each tick, and counters are bumped with {@code lazySet} (no contended atomics on the hot path;
 * a shared recorder cost a measurable share of the generator's CPU in bench/load-vs-wrk.sh).
 */
final class Metrics {

    /** Values are microseconds; anything beyond an hour is clamped rather than lost. */
    static final long HIGHEST_MICROS = 3_600_000_000L;
    static final int DIGITS = 3;

    enum Failure { CONNECT, TIMEOUT, IO }

    final SingleWriterRecorder latency = new SingleWriterRecorder(HIGHEST_MICROS, DIGITS);
    final SingleWriterRecorder service = new SingleWriterRecorder(HIGHEST_MICROS, DIGITS);
    final AtomicLong failures = new AtomicLong();
    final AtomicLong httpErrors = new AtomicLong();
    final AtomicLong sent = new AtomicLong();
    /** Measured responses under 400 after which the server closed the connection (Connection: close, HTTP/1.0). */
    final AtomicLong closedByServer = new AtomicLong();
    /** Measured responses' body bytes, as decoded (chunked framing and headers left out). */
    final AtomicLong bodyBytes = new AtomicLong();
    private final AtomicLongArray byFailure = new AtomicLongArray(Failure.values().length);
    /** Index = status code; 0..599 covers every valid HTTP status. */
    final AtomicLongArray status = new AtomicLongArray(600);
    /** Per plan request; plain fields, read only after the worker has stopped (happens-before via its loop). */
    final Histogram[] latencyByRequest;
    final long[] finishedByRequest;
    final long[] errorsByRequest;

    Metrics(int requestKinds) {
        latencyByRequest = new Histogram[requestKinds];
        for (int i = 0; i < requestKinds; i++) {
            latencyByRequest[i] = new Histogram(HIGHEST_MICROS, DIGITS);
        }
        finishedByRequest = new long[requestKinds];
        errorsByRequest = new long[requestKinds];
    }

    void response(int request, int statusCode, long latencyNanos, long serviceNanos) {
        long micros = clamp(latencyNanos);
        latency.recordValue(micros);
        latencyByRequest[request].recordValue(micros);
        finishedByRequest[request]++;
        if (statusCode >= 400) {
            errorsByRequest[request]++;
        }
        service.recordValue(clamp(serviceNanos));
        if (statusCode >= 0 && statusCode < 600) {
            status.lazySet(statusCode, status.get(statusCode) + 1);
        }
        if (statusCode >= 400) {
            bump(httpErrors);
        }
    }

    void failure(int request, Failure kind) {
        if (request >= 0) {
            finishedByRequest[request]++;
            errorsByRequest[request]++;
        }
        bump(failures);
        byFailure.lazySet(kind.ordinal(), byFailure.get(kind.ordinal()) + 1);
    }

    void sent() {
        bump(sent);
    }

    void closedByServer() {
        bump(closedByServer);
    }

    void body(long bytes) {
        bodyBytes.lazySet(bodyBytes.get() + bytes);
    }

    long failures(Failure kind) {
        return byFailure.get(kind.ordinal());
    }

    private static void bump(AtomicLong single) {
        single.lazySet(single.get() + 1);
    }

    private static long clamp(long nanos) {
        return Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1000));
    }
}
