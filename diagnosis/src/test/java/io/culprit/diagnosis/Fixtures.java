package io.culprit.diagnosis;

import io.culprit.model.CaseFile;
import java.net.URISyntaxException;
import java.nio.file.Path;

/** The recorded (today: hand-written, source "fixture") case files under src/test/resources/cases. */
public final class Fixtures {
    private Fixtures() { }

    public static Path dir(String name) {
        try {
            return Path.of(Fixtures.class.getResource("/cases/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalArgumentException("no fixture case " + name, e);
        }
    }

    /** A copy of fixture {@code name} at {@code to}, for a test that changes a file of it. */
    public static Path copy(String name, Path to) throws java.io.IOException {
        Path from = dir(name);
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                java.nio.file.Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        }
        return to;
    }

    public static Evidence evidence(String name) {
        return new Evidence(CaseFile.open(dir(name)));
    }
}
