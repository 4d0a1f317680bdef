package io.culprit.diagnosis.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.culprit.model.CaseFile;
import io.culprit.model.Series;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code requests} series derived from the load generator's {@code load.json} (docs/LOAD.md,
 * format {@code culprit-load} version 1), for case files that carry the load result but no
 * {@code series/requests.json}. Latency is the coordinated-omission-corrected one.
 */
public final class LoadJson {
    private LoadJson() { }

    public static Optional<Series> requests(Path caseDir) {
        Optional<JsonNode> read = read(caseDir);
        if (read.isEmpty()) return Optional.empty();
        JsonNode root = read.get();
        long windowMs = root.path("plan").path("window_ms").asLong(15_000);
        Series.Builder b = Series.builder("requests", windowMs).unit("p50Ms", "ms").unit("p90Ms", "ms").unit("p99Ms", "ms")
                .unit("maxMs", "ms").unit("meanMs", "ms");
        for (JsonNode w : root.path("windows")) {
            JsonNode lat = w.path("latency_ms");
            Map<String, Double> row = new LinkedHashMap<>();
            row.put("rps", num(w.path("achieved_rps")));
            row.put("targetRps", num(w.path("target_rps")));
            row.put("p50Ms", num(lat.path("p50")));
            row.put("p90Ms", num(lat.path("p90")));
            row.put("p99Ms", num(lat.path("p99")));
            row.put("maxMs", num(lat.path("max")));
            row.put("meanMs", num(lat.path("mean")));
            row.put("errors", num(w.path("errors")));
            b.row(w.path("start_epoch_ms").asLong(), row);
        }
        return Optional.of(b.build());
    }

    /**
     * Failed requests that the server answered with a 4xx status: the request was refused (wrong
     * URL, missing entity, bad input), not the service failing under load. NaN without load.json.
     */
    public static double clientErrors(Path caseDir) {
        Optional<JsonNode> root = read(caseDir);
        if (root.isEmpty()) return Double.NaN;
        double[] n = {0};
        root.get().path("summary").path("status").fields().forEachRemaining(e -> {
            if (e.getKey().startsWith("4")) n[0] += e.getValue().asDouble();
        });
        return n[0];
    }

    /**
     * The clients' mean time from sending a request to its response (the generator's service
     * time: without the coordinated-omission correction, so an open model's own backlog is not
     * in it). NaN without load.json.
     */
    public static double serviceMeanMs(Path caseDir) {
        return read(caseDir).map(r -> num(r.path("summary").path("service_ms").path("mean"))).orElse(Double.NaN);
    }

    /**
     * Requests the generator completed, counted (its windows' rates are rounded, so their sum
     * times the window can miss a few). NaN without load.json.
     */
    public static double completed(Path caseDir) {
        return read(caseDir).map(r -> num(r.path("summary").path("requests"))).orElse(Double.NaN);
    }

    /**
     * Successful responses (status under 400) after which the server closed the connection, and all
     * successful responses: {closed, responses}. Null without load.json or from a generator older
     * than the count (session 30).
     */
    public static double[] closedByServer(Path caseDir) {
        return read(caseDir).filter(r -> r.path("summary").has("closed_by_server")).map(r -> {
            double ok = 0;
            for (var e = r.path("summary").path("status").fields(); e.hasNext(); ) {
                var s = e.next();
                if (s.getKey().compareTo("400") < 0 && s.getKey().length() == 3) ok += s.getValue().asDouble();
            }
            return new double[] {num(r.path("summary").path("closed_by_server")), ok};
        }).orElse(null);
    }

    /**
     * The measured responses' mean body size in bytes, as the generator decoded them; NaN without
     * load.json or from a generator older than the count (session 51).
     */
    public static double bodyBytesPerResponse(Path caseDir) {
        return read(caseDir).filter(r -> r.path("summary").has("body_bytes")).map(r -> {
            double responses = num(r.path("summary").path("responses"));
            return responses > 0 ? num(r.path("summary").path("body_bytes")) / responses : Double.NaN;
        }).orElse(Double.NaN);
    }

    /** The load model that drove the case ("open" or "closed"), or null without load.json. */
    public static String model(Path caseDir) {
        return read(caseDir).map(r -> r.path("plan").path("model").asText(null)).orElse(null);
    }

    /** The connections a closed-model load kept busy (each sends its next request when one returns), or NaN. */
    public static double closedConnections(Path caseDir) {
        return read(caseDir).filter(r -> "closed".equals(r.path("plan").path("model").asText(null)))
                .map(r -> num(r.path("plan").path("connections"))).orElse(Double.NaN);
    }

    private static Optional<JsonNode> read(Path caseDir) {
        Path p = caseDir.resolve("load.json");
        if (!Files.isRegularFile(p)) return Optional.empty();
        JsonNode root;
        try {
            root = CaseFile.json().readTree(p.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p + ": " + e.getMessage(), e);
        }
        if (!"culprit-load".equals(root.path("format").asText()) || root.path("version").asInt() > 1) return Optional.empty();
        return Optional.of(root);
    }

    // null (closed-model target, empty window) is "not measured", never zero.
    private static double num(JsonNode n) {
        return n.isNumber() ? n.asDouble() : Double.NaN;
    }
}
