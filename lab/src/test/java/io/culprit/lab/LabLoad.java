package io.culprit.lab;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounded load on 127.0.0.1 for the lab's tests, with the JDK HttpClient: a closed model (N
 * clients in a loop) and an open model (a fixed arrival rate). Deliberately small; culprit's own
 * load generator lives in the load module.
 */
final class LabLoad {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * Each open connection costs the server heap (Tomcat's socket buffers, ~40 KB): unbounded, a
     * lagging lab on a small heap (gc-pool-starvation) would die of its clients' connections.
     */
    static final int MAX_IN_FLIGHT = 100;

    private LabLoad() {
    }

    /** How long {@link #open} waits for the answers still missing when its window ends. */
    static final Duration DRAIN = Duration.ofSeconds(3);

    /** {@code unanswered}: open model only, requests not sent in the window or not answered by its drain. */
    record Result(long requests, long errors, long unanswered, double seconds, List<Long> latenciesNanos) {
        double throughput() {
            return requests / seconds;
        }

        double percentileMs(double p) {
            List<Long> l = new ArrayList<>(latenciesNanos);
            if (l.isEmpty()) {
                return Double.NaN;
            }
            Collections.sort(l);
            return l.get(Math.min(l.size() - 1, (int) (l.size() * p))) / 1e6;
        }

        @Override
        public String toString() {
            return String.format("%d req (%d errors%s) in %.1f s = %.1f req/s, p50 %.1f ms, p99 %.1f ms",
                    requests, errors, unanswered > 0 ? ", " + unanswered + " unanswered" : "", seconds, throughput(),
                    percentileMs(0.5), percentileMs(0.99));
        }
    }

    static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).build();
    }

    static HttpRequest postJson(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** One request; returns its latency in nanoseconds, failing on a 5xx. */
    static long once(HttpRequest req) {
        long t0 = System.nanoTime();
        try {
            HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() >= 500) {
                throw new AssertionError(req.uri() + " answered " + r.statusCode() + ": " + r.body());
            }
        } catch (IOException e) {
            throw new AssertionError(req.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return System.nanoTime() - t0;
    }

    static String body(HttpRequest req) {
        try {
            return HTTP.send(req, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new AssertionError(req.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** {@code clients} threads each sending {@code req} back to back for {@code duration}. */
    static Result closed(HttpRequest req, int clients, Duration duration) throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        AtomicLong errors = new AtomicLong();
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            Thread t = new Thread(() -> {
                while (System.nanoTime() < end) {
                    try {
                        lat.add(once(req));
                    } catch (AssertionError e) {
                        if (errors.incrementAndGet() == 1) System.err.println("lab load: first error: " + e.getMessage());
                    }
                }
            }, "lab-load-" + i);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        return new Result(lat.size(), errors.get(), 0, (System.nanoTime() - t0) / 1e9, List.copyOf(lat));
    }

    /**
     * {@code rate} requests per second for {@code duration}, sent on schedule whatever the answers,
     * with at most {@link #MAX_IN_FLIGHT} outstanding (as a load generator's connection limit): past
     * that the schedule waits, and the wait counts in the latency. The window is bounded so a service
     * that falls behind cannot stretch a test: what is not sent by the window's end, or not answered
     * {@link #DRAIN} after it, is counted as unanswered (its latency, longer still, is left out).
     */
    static Result open(HttpRequest req, int rate, Duration duration) {
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        AtomicLong errors = new AtomicLong();
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        Semaphore slots = new Semaphore(MAX_IN_FLIGHT);
        long t0 = System.nanoTime();
        long end = t0 + duration.toNanos();
        long n = rate * duration.toSeconds();
        for (long i = 0; i < n; i++) {
            long due = t0 + i * 1_000_000_000L / rate;
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            if (!acquire(slots, end - System.nanoTime())) {
                break;
            }
            // Latency from the intended send time: queueing behind a pause counts.
            inFlight.add(HTTP.sendAsync(req, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
                slots.release();
                if (e != null || r.statusCode() >= 500) {
                    errors.incrementAndGet();
                } else {
                    lat.add(System.nanoTime() - due);
                }
            }));
        }
        try {
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(DRAIN.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException stillLateOrFailed) {
            // Counted below: failures as errors, the late ones as unanswered.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Long> answered = List.copyOf(lat);
        long failed = errors.get();
        return new Result(answered.size(), failed, Math.max(0, n - answered.size() - failed),
                (System.nanoTime() - t0) / 1e9, answered);
    }

    private static boolean acquire(Semaphore slots, long timeoutNanos) {
        try {
            return slots.tryAcquire(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
