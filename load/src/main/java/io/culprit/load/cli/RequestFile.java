package io.culprit.load.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.culprit.load.LoadException;
import io.culprit.load.RequestSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Requests from a file, one per line; blank lines and {@code #} comments are skipped. A line is
 * either {@code [METHOD] [WEIGHT@]URL} (taking the command line's headers and body) or a JSON
 * object: {@code {"method":"POST","url":"http://...","weight":2,"headers":{"A":"b"},"body":"..."}}.
 */
public final class RequestFile {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestFile() {
    }

    /** The file's requests; a line without its own method, headers or body takes these. */
    public static List<RequestSpec> read(Path file, String method, Map<String, String> headers, byte[] body) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new LoadException("cannot read request file " + file + ": " + e.getMessage());
        }
        List<RequestSpec> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                out.add(line.startsWith("{") ? json(line) : plain(line, method, headers, body));
            } catch (LoadException e) {
                throw new LoadException(file + ":" + (i + 1) + ": " + e.getMessage());
            }
        }
        if (out.isEmpty()) {
            throw new LoadException("request file " + file + " has no request");
        }
        return out;
    }

    /** {@code [WEIGHT@]URL}, as on the command line. */
    static RequestSpec url(String arg, String method, Map<String, String> headers, byte[] body) {
        int at = arg.indexOf('@');
        double weight = 1;
        String url = arg;
        if (at > 0 && arg.substring(0, at).matches("\\d+(\\.\\d+)?")) {
            weight = Double.parseDouble(arg.substring(0, at));
            url = arg.substring(at + 1);
        }
        return new RequestSpec(method, RequestSpec.parseUrl(url), headers, body, weight);
    }

    private static RequestSpec plain(String line, String method, Map<String, String> headers, byte[] body) {
        String[] parts = line.split("\\s+");
        if (parts.length == 1) {
            return url(parts[0], method, headers, body);
        }
        if (parts.length == 2) {
            return url(parts[1], parts[0], headers, body);
        }
        throw new LoadException("expected '[METHOD] [WEIGHT@]URL' or a JSON object, got: " + line);
    }

    private static RequestSpec json(String line) {
        JsonNode n;
        try {
            n = JSON.readTree(line);
        } catch (IOException e) {
            throw new LoadException("bad JSON: " + (e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
        }
        if (!n.hasNonNull("url")) {
            throw new LoadException("JSON request needs a \"url\"");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        n.path("headers").fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
        byte[] body = n.hasNonNull("body") ? n.get("body").asText().getBytes(StandardCharsets.UTF_8) : null;
        return new RequestSpec(n.path("method").asText("GET"), RequestSpec.parseUrl(n.get("url").asText()),
                headers, body, n.path("weight").asDouble(1));
    }
}
