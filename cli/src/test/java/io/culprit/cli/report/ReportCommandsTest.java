package io.culprit.cli.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.Culprit;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code culprit report} and {@code culprit diff} over the diagnosis fixtures (no findings.json: diagnosed on the fly). */
class ReportCommandsTest {
    private static final Path CASES = Path.of("../diagnosis/src/test/resources/cases");

    @Test
    void reportWritesOnePageWithTheVerdict(@TempDir Path dir) throws Exception {
        String[] out = new String[2];
        Path page = dir.resolve("r.html");
        assertThat(run(out, "report", CASES.resolve("gc-pool-starvation").toString(), "--out", page.toString())).as(out[1]).isZero();
        assertThat(out[0]).startsWith("report: ").contains("r.html");
        String html = Files.readString(page);
        assertThat(html.contains("gc-pressure: GC pressure stalls request threads")).isTrue();
        assertThat(html.contains("default-src 'none'")).isTrue();
    }

    @Test
    void markdownAndJsonGoToStdout() {
        String[] out = new String[2];
        assertThat(run(out, "report", CASES.resolve("timer-lock-log-storm").toString(), "--format", "md")).isZero();
        assertThat(out[0]).startsWith("# culprit report — case timer-lock-log-storm").contains("lock-contention");
        assertThat(run(out, "report", CASES.resolve("timer-lock-log-storm").toString(), "--format", "json")).isZero();
        assertThat(out[0]).contains("\"verdict\"").contains("\"top\"");
    }

    @Test
    void badInputIsOneLineAndNonZero(@TempDir Path dir) {
        String[] out = new String[2];
        assertThat(run(out, "report", dir.resolve("nope").toString())).isEqualTo(2);
        assertThat(out[1].strip()).startsWith("culprit report: not a case file").doesNotContain("\n");
        assertThat(run(out, "report", CASES.resolve("healthy").toString(), "--format", "pdf")).isEqualTo(2);
        assertThat(out[1].strip()).isEqualTo("culprit report: unknown --format pdf (use html, md or json)");
        assertThat(run(out, "diff", CASES.resolve("healthy").toString(), dir.toString())).isEqualTo(2);
        assertThat(out[1].strip()).startsWith("culprit diff: not a case file");
    }

    @Test
    void diffOfAFixedTwinMarksTheRootCauseResolved() {
        String[] out = new String[2];
        int code = run(out, "diff", CASES.resolve("gc-pool-starvation").toString(), CASES.resolve("gc-pool-starvation-fixed").toString());
        assertThat(code).as(out[1]).isZero();
        assertThat(out[0]).containsPattern("GC pause sum ms +2,336 +36 +-98% +better")
                .containsPattern("(?s)Resolved \\(\\d+\\)\\n  gc-pressure: CRITICAL/CONFIRMED → OK/RULED_OUT \\(the root cause before\\)");
    }

    private static int run(String[] out, String... args) {
        StringWriter o = new StringWriter(), e = new StringWriter();
        CommandLine cl = Culprit.commandLine();
        cl.setOut(new PrintWriter(o));
        cl.setErr(new PrintWriter(e));
        int code = cl.execute(args);
        out[0] = o.toString();
        out[1] = e.toString();
        return code;
    }
}
