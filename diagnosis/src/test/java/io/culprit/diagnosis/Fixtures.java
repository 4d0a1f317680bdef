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

    public static Evidence evidence(String name) {
        return new Evidence(CaseFile.open(dir(name)));
    }
}
