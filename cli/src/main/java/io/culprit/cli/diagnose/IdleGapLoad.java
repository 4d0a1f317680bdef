package io.culprit.cli.diagnose;

import io.culprit.cli.agent.CulpritException;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The load shape that exposes time-to-live effects (CASES.md #1): bursts of requests sent one
 * after another, separated by idle gaps. A throughput generator never leaves the service idle, so
 * a cache that expires after a few idle seconds never shows under it. Every request's latency is
 * kept with the idle time before it; the case gets the catalogue's {@code idle-gap} table
 * (latency by gap bucket) and a {@code requests} series. The pause between bursts is the
 * workload itself, as a quiet service sees it.
 */
final class IdleGapLoad {
    /** Bucket lower bounds, ms: back-to-back, then the idle times TTL caches are usually set to. */
    private static final long[] BUCKETS = {0, 500, 2_000, 5_000, 10_000, 30_000};

    private final URI url;
    private final String method;
    private final Map<String, String> headers;
    private final byte[] body;
    private final Duration gap;
    private final int burst;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<long[]> samples = new ArrayList<>();  // {epochMs, gapMs, latencyMicros, failed, majorFaults}
    /** The target's major page faults, read around each request (-1 where /proc cannot be read). */
    private final ProcessFaults faults;

    IdleGapLoad(URI url, String method, Map<String, String> headers, byte[] body, Duration gap, int burst, ProcessFaults faults) {
        this.faults = faults;
        this.url = url;
        this.method = method;
        this.headers = headers;
        this.body = body;
        this.gap = gap;
        this.burst = burst;
    }

    /** Bursts until {@code duration} is used up (at least two, so both sides of the gap are seen). */
    void run(Duration duration, PrintStream progress) throws InterruptedException {
        send();  // unrecorded: the client's own first request pays for its connection and classes
        long end = System.nanoTime() + duration.toNanos();
        long lastEnd = System.nanoTime();
        int bursts = 0;
        while (bursts < 2 || System.nanoTime() < end) {
            if (bursts > 0) Thread.sleep(gap.toMillis());
            long[] first = null;
            for (int i = 0; i < burst; i++) {
                long faultsBefore = faults.major();
                long start = System.nanoTime();
                boolean failed = !send();
                long now = System.nanoTime();
                long faultsAfter = faultsBefore < 0 ? -1 : faults.major();
                long[] s = {System.currentTimeMillis(), (start - lastEnd) / 1_000_000, (now - start) / 1_000, failed ? 1 : 0,
                        faultsAfter < 0 ? -1 : faultsAfter - faultsBefore};
                samples.add(s);
                if (first == null) first = s;
                lastEnd = now;
            }
            bursts++;
            progress.printf("      burst %d: first request %.1f ms after %.1f s idle%n", bursts, first[2] / 1000.0, first[1] / 1000.0);
        }
    }

    private boolean send() {
        HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30))
                .method(method, body == null || body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        try {
            int status = http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            return status < 400;
        } catch (IOException e) {
            throw new CulpritException("idle-gap load: " + url + ": " + e.getMessage(), 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    long requests() {
        return samples.size();
    }

    /**
     * Latency by the idle time before the request, buckets ascending, empty buckets left out; with
     * the target's major page faults per request (mean) where every request's were counted.
     */
    Table idleGapTable() {
        boolean counted = !samples.isEmpty() && samples.stream().allMatch(s -> s[4] >= 0);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int b = 0; b < BUCKETS.length; b++) {
            long lo = BUCKETS[b], hi = b + 1 < BUCKETS.length ? BUCKETS[b + 1] : Long.MAX_VALUE;
            List<long[]> in = samples.stream().filter(s -> s[1] >= lo && s[1] < hi).toList();
            if (in.isEmpty()) continue;
            long[] lat = in.stream().mapToLong(s -> s[2]).sorted().toArray();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("gapMs", lo);
            row.put("count", lat.length);
            row.put("p50Ms", quantile(lat, 0.5) / 1000.0);
            row.put("p99Ms", quantile(lat, 0.99) / 1000.0);
            if (counted) row.put("majorFaults", in.stream().mapToLong(s -> s[4]).average().orElse(0));
            rows.add(row);
        }
        List<String> columns = new ArrayList<>(List.of("gapMs", "count", "p50Ms", "p99Ms"));
        if (counted) columns.add("majorFaults");
        return new Table("idle-gap", columns, rows);
    }

    /** The client's view per window, like the throughput load's {@code requests} series. */
    Series requestsSeries(long windowMs) {
        Series.Builder s = Series.builder("requests", windowMs).unit("rps", "1/s").unit("p50Ms", "ms").unit("p99Ms", "ms");
        if (samples.isEmpty()) return s.build();
        long t0 = samples.get(0)[0];
        int windows = (int) ((samples.get(samples.size() - 1)[0] - t0) / windowMs) + 1;
        for (int w = 0; w < windows; w++) {
            long from = t0 + w * windowMs, to = from + windowMs;
            long[] lat = samples.stream().filter(x -> x[0] >= from && x[0] < to).mapToLong(x -> x[2]).sorted().toArray();
            long errors = samples.stream().filter(x -> x[0] >= from && x[0] < to && x[3] == 1).count();
            Map<String, Number> row = new LinkedHashMap<>();
            row.put("rps", lat.length * 1000.0 / windowMs);
            row.put("p50Ms", lat.length == 0 ? Double.NaN : quantile(lat, 0.5) / 1000.0);
            row.put("p99Ms", lat.length == 0 ? Double.NaN : quantile(lat, 0.99) / 1000.0);
            row.put("errors", errors);
            s.row(from, row);
        }
        return s.build();
    }

    // Nearest-rank quantile of a sorted array: with a handful of samples per bucket, no interpolation.
    private static long quantile(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
