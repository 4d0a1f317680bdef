package io.culprit.report;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/** The diagnosis module's fixtures, copied so a test can add profiles, and the real rules' findings. */
final class TestCases {
    static final Path FIXTURES = Path.of("../diagnosis/src/test/resources/cases");

    private TestCases() { }

    static CaseFile copy(String fixture, Path into) {
        Path src = FIXTURES.resolve(fixture), dst = into.resolve(fixture);
        try (Stream<Path> s = Files.walk(src)) {
            for (Path p : s.toList()) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return CaseFile.create(dst);
    }

    /** Copies a collapsed-stack test resource into the case's profiles/ under {@code name}. */
    static void profile(CaseFile cf, String resource, String name) {
        try (InputStream in = TestCases.class.getResourceAsStream("/profiles/" + resource)) {
            Files.copy(in, cf.profile(name), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Finding> diagnose(CaseFile cf) {
        return Diagnosis.run(cf).findings();
    }

    static Report report(CaseFile cf) {
        return ReportBuilder.build(cf, diagnose(cf));
    }

    /** Like AssertJ's contains, but a failure names what is missing instead of printing a 300 KB page. */
    static void has(String page, String... parts) {
        for (String p : parts) if (!page.contains(p)) org.junit.jupiter.api.Assertions.fail("page lacks: " + p);
    }

    static void hasInOrder(String page, String... parts) {
        int at = 0;
        for (String p : parts) {
            int i = page.indexOf(p, at);
            if (i < 0) org.junit.jupiter.api.Assertions.fail("page lacks, after offset " + at + ": " + p);
            at = i + p.length();
        }
    }

    static void lacks(String page, String regex) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(regex).matcher(page);
        if (m.find()) org.junit.jupiter.api.Assertions.fail("page has " + regex + " at " + m.start() + ": " + m.group());
    }
}
