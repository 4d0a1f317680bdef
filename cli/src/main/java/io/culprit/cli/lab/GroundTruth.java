package io.culprit.cli.lab;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One scenario's ground-truth file (docs/LAB.md). The CLI needs the launch and load fields; the
 * whole document stays available as {@link #json()} for tests that compare a diagnosis with it.
 */
public record GroundTruth(String name, String title, String category, List<String> jvmArgs,
                          List<String> fixedJvmArgs, String method, String path, String body, JsonNode json) {

    static GroundTruth of(JsonNode n) {
        JsonNode ep = n.path("endpoint");
        return new GroundTruth(n.path("name").asText(), n.path("title").asText(),
                n.path("rootCause").path("category").asText(), strings(n.path("jvmArgs")),
                strings(n.path("fixedJvmArgs")), ep.path("method").asText("GET"), ep.path("path").asText("/"),
                ep.hasNonNull("body") ? ep.get("body").asText() : null, n);
    }

    /** The JVM flags for the faulty or the fixed twin. */
    public List<String> jvmArgs(boolean fixed) {
        return fixed ? fixedJvmArgs : jvmArgs;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(a -> out.add(a.asText()));
        return List.copyOf(out);
    }
}
