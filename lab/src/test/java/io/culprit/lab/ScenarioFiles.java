package io.culprit.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads the ground-truth files from the class path, as other modules' tests will. */
final class ScenarioFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ScenarioFiles() {
    }

    static JsonNode read(String name) {
        try (InputStream in = ScenarioFiles.class.getClassLoader().getResourceAsStream("scenarios/" + name + ".json")) {
            if (in == null) {
                throw new IllegalStateException("no scenarios/" + name + ".json on the class path");
            }
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String endpointPath(String name) {
        return read(name).path("endpoint").path("path").asText();
    }
}
