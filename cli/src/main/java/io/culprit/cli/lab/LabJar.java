package io.culprit.cli.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The lab's fat jar, {@code $CULPRIT_HOME/lab/target/culprit-lab.jar}, and the scenario
 * ground-truth files inside it ({@code BOOT-INF/classes/scenarios/<name>.json}, format in
 * docs/LAB.md).
 */
public final class LabJar {

    static final String ENTRY_PREFIX = "BOOT-INF/classes/scenarios/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path jar;

    private LabJar(Path jar) {
        this.jar = jar;
    }

    /**
     * The jar under {@code CULPRIT_HOME} from {@code env}, else the system property culprit.home,
     * else the checkout this CLI runs from ({@code <home>/cli/target/culprit.jar}).
     */
    public static LabJar locate(Map<String, String> env) {
        String home = env.getOrDefault("CULPRIT_HOME", System.getProperty("culprit.home", homeOfThisJar()));
        if (home == null || home.isBlank()) {
            throw new IllegalStateException("CULPRIT_HOME is not set; run culprit through the ./culprit launcher");
        }
        Path jar = Path.of(home, "lab", "target", "culprit-lab.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("lab jar not found at " + jar + "; build it with: mvn -B -pl lab -am install -DskipTests");
        }
        return new LabJar(jar);
    }

    private static String homeOfThisJar() {
        try {
            Path self = Path.of(LabJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path target = self.getParent();
            if (self.toString().endsWith(".jar") && target != null && target.getFileName().toString().equals("target")
                    && target.getParent() != null && target.getParent().getParent() != null) {
                return target.getParent().getParent().toString();
            }
        } catch (RuntimeException | java.net.URISyntaxException e) {
            // No usable code source: fall through to the CULPRIT_HOME message.
        }
        return null;
    }

    public static LabJar locate() {
        return locate(System.getenv());
    }

    public static LabJar at(Path jar) {
        return new LabJar(jar);
    }

    public Path path() {
        return jar;
    }

    /** Scenario names in their documented order. */
    public List<String> scenarioNames() {
        List<String> names = new ArrayList<>();
        read("index").path("scenarios").forEach(n -> names.add(n.asText()));
        return names;
    }

    /** The ground truth of {@code name}; a one-line error naming the known scenarios if unknown. */
    public GroundTruth scenario(String name) {
        List<String> known = scenarioNames();
        if (!known.contains(name)) {
            throw new IllegalArgumentException("unknown lab scenario '" + name + "'; known: " + String.join(", ", known));
        }
        return GroundTruth.of(read(name));
    }

    private JsonNode read(String name) {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry e = zip.getEntry(ENTRY_PREFIX + name + ".json");
            if (e == null) {
                throw new IllegalStateException(jar + " holds no " + ENTRY_PREFIX + name + ".json; rebuild the lab");
            }
            try (InputStream in = zip.getInputStream(e)) {
                return JSON.readTree(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + jar + ": " + e.getMessage(), e);
        }
    }
}
