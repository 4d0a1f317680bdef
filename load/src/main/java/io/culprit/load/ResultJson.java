package io.culprit.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Writes a {@link LoadResult} as {@code culprit-load} JSON, version {@value #VERSION}: the format
 * documented in docs/LOAD.md, read by diagnose as {@code load.json} in a case file. Fields are only
 * ever added within a version; a rename or a change of meaning bumps it.
 */
public final class ResultJson {

    public static final String FORMAT = "culprit-load";
    public static final int VERSION = 1;
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultJson() {
    }

    public static void write(LoadResult r, List<Threshold> thresholds, Path file) {
        try {
            Files.writeString(file, toJson(r, thresholds) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    public static String toJson(LoadResult r, List<Threshold> thresholds) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("format", FORMAT);
        root.put("version", VERSION);
        root.put("started_epoch_ms", r.startEpochMs());
        plan(root.putObject("plan"), r.plan());
        summary(root.putObject("summary"), r);
        ArrayNode windows = root.putArray("windows");
        for (WindowStats w : r.windows()) {
            ObjectNode n = windows.addObject();
            n.put("index", w.index());
            n.put("start_ms", w.startNanos() / 1e6);
            n.put("end_ms", w.endNanos() / 1e6);
            n.put("start_epoch_ms", w.startEpochMs());
            n.put("requests", w.requests());
            n.put("errors", w.errors());
            n.put("in_flight", w.inFlight());
            n.put("queued", w.queued());
            number(n, "achieved_rps", w.achievedRps());
            number(n, "target_rps", w.targetRps());
            number(n, "shortfall", w.shortfall());
            percentiles(n.putObject("latency_ms"), w.latency());
            percentiles(n.putObject("service_ms"), w.service());
            n.put("latency_hdr", encode(w.latency()));
            n.put("service_hdr", encode(w.service()));
        }
        ObjectNode h = root.putObject("histograms");
        h.put("unit", "us");
        h.put("encoding", "hdrhistogram-v2-compressed-base64");
        h.put("latency", encode(r.latency()));
        h.put("service", encode(r.service()));
        ArrayNode th = root.putArray("thresholds");
        for (Threshold t : thresholds) {
            ObjectNode n = th.addObject();
            n.put("expression", t.expression());
            n.put("ok", t.passes(r));
            number(n, "actual", t.actual(r));
        }
        try {
            return MAPPER.writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes a {@code *_hdr} field back into a histogram (microseconds). */
    public static Histogram decodeHistogram(String base64) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("not an HdrHistogram encoding: " + e.getMessage(), e);
        }
    }

    static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        byte[] bytes = new byte[n];
        buf.flip();
        buf.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static void plan(ObjectNode n, LoadPlan p) {
        n.put("model", p.model().name().toLowerCase(java.util.Locale.ROOT));
        n.put("connections", p.connections());
        n.put("threads", p.effectiveThreads());
        n.put("duration_ms", p.duration().toMillis());
        n.put("warmup_ms", p.warmup().toMillis());
        n.put("window_ms", p.window().toMillis());
        n.put("timeout_ms", p.timeout().toMillis());
        if (p.schedule() != null) {
            n.put("start_rps", p.schedule().startRate());
            ArrayNode stages = n.putArray("stages");
            for (RateSchedule.Stage s : p.schedule().stages()) {
                ObjectNode st = stages.addObject();
                st.put("target_rps", s.targetRate());
                st.put("duration_ms", s.duration().toMillis());
            }
        }
        ArrayNode reqs = n.putArray("requests");
        for (RequestSpec r : p.requests()) {
            ObjectNode o = reqs.addObject();
            o.put("method", r.method());
            o.put("url", r.uri().toString());
            o.put("weight", r.weight());
            ObjectNode hs = o.putObject("headers");
            for (Map.Entry<String, String> e : r.headers().entrySet()) {
                hs.put(e.getKey(), e.getValue());
            }
            o.put("body_bytes", r.body().length);
        }
    }

    private static void summary(ObjectNode n, LoadResult r) {
        n.put("duration_s", r.seconds());
        n.put("requests", r.requests());
        n.put("sent", r.sent());
        n.put("unsent", r.unsent());
        n.put("closed_by_server", r.closedByServer());
        n.put("responses", r.latency().getTotalCount());
        n.put("body_bytes", r.bodyBytes());
        n.put("errors", r.errors());
        n.put("error_rate", r.errorRate());
        ObjectNode kinds = n.putObject("errors_by_kind");
        r.errorsByKind().forEach(kinds::put);
        ObjectNode status = n.putObject("status");
        r.statusCounts().forEach((k, v) -> status.put(String.valueOf(k), v));
        number(n, "achieved_rps", r.achievedRps());
        number(n, "target_requests", r.targetRequests());
        number(n, "target_rps", r.targetRequests() / r.seconds());
        number(n, "shortfall", r.targetRequests() > 0 ? (r.targetRequests() - r.requests()) / r.targetRequests() : Double.NaN);
        percentiles(n.putObject("latency_ms"), r.latency());
        percentiles(n.putObject("service_ms"), r.service());
        ArrayNode byRequest = n.putArray("by_request");
        for (RequestStats rs : r.perRequest()) {
            ObjectNode o = byRequest.addObject();
            o.put("method", rs.spec().method());
            o.put("url", rs.spec().uri().toString());
            o.put("requests", rs.requests());
            o.put("errors", rs.errors());
            percentiles(o.putObject("latency_ms"), rs.latency());
        }
    }

    private static void percentiles(ObjectNode n, Histogram h) {
        n.put("count", h.getTotalCount());
        boolean empty = h.getTotalCount() == 0;
        number(n, "min", empty ? Double.NaN : h.getMinValue() / 1e3);
        number(n, "mean", empty ? Double.NaN : h.getMean() / 1e3);
        for (double p : new double[] {50, 90, 95, 99, 99.9}) {
            String key = "p" + (p == 99.9 ? "999" : String.valueOf((int) p));
            number(n, key, empty ? Double.NaN : h.getValueAtPercentile(p) / 1e3);
        }
        number(n, "max", empty ? Double.NaN : h.getMaxValue() / 1e3);
    }

    /** JSON has no NaN: a value that does not apply (closed-model targets, empty windows) is null. */
    private static void number(ObjectNode n, String key, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            n.putNull(key);
        } else {
            n.put(key, v);
        }
    }
}
