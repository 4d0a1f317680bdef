package io.culprit.cli.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --open} on a machine without a desktop: $BROWSER is honoured, and no browser at all is one line, not a failure. */
class BrowserTest {
    private static final Path CASES = Path.of("../diagnosis/src/test/resources/cases");

    @TempDir Path tmp;

    @Test
    void browserFromTheEnvironmentGetsThePageAddress() throws Exception {
        Path args = tmp.resolve("args"), fake = fakeBrowser(args, 0);
        Path page = Files.writeString(tmp.resolve("page.html"), "<p>hi</p>");
        StringWriter err = new StringWriter();

        boolean opened = new Browser(Map.of("BROWSER", fake.toString()), false, List.of()).open(page, new PrintWriter(err, true));

        assertThat(opened).isTrue();
        assertThat(Files.readAllLines(args)).containsExactly(page.toUri().toString());
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void percentSIsReplacedAndAFailingEntryFallsThroughToTheNext() throws Exception {
        Path args = tmp.resolve("args"), good = fakeBrowser(args, 0), bad = fakeBrowser(tmp.resolve("unused"), 3);
        Path page = Files.writeString(tmp.resolve("page.html"), "<p>hi</p>");
        Browser b = new Browser(Map.of("BROWSER", tmp.resolve("absent") + ":" + bad + ":" + good + " --new-tab %s"), false, List.of());

        assertThat(b.open(page, new PrintWriter(new StringWriter()))).isTrue();
        assertThat(Files.readAllLines(args)).containsExactly("--new-tab", page.toUri().toString());
    }

    @Test
    void noBrowserAnywhereSaysWhereThePageIsInOneLine() throws Exception {
        Path page = Files.writeString(tmp.resolve("page.html"), "<p>hi</p>");
        StringWriter err = new StringWriter();

        boolean opened = new Browser(Map.of(), false, List.of(tmp.resolve("no-xdg-open").toString())).open(page, new PrintWriter(err, true));

        assertThat(opened).isFalse();
        assertThat(err.toString().strip()).doesNotContain("\n").startsWith("culprit report: could not open a browser")
                .endsWith(page.toUri().toString());
    }

    @Test
    void reportOpenWritesThePageAndSucceedsWithOrWithoutABrowser() throws Exception {
        Path args = tmp.resolve("args");
        String[] out = new String[2];
        Browser fake = new Browser(Map.of("BROWSER", fakeBrowser(args, 0).toString()), false, List.of());
        assertThat(report(fake, out, tmp.resolve("a.html"))).as(out[1]).isZero();
        assertThat(Files.readAllLines(args)).containsExactly(tmp.resolve("a.html").toUri().toString());

        Browser none = new Browser(Map.of(), false, List.of());
        assertThat(report(none, out, tmp.resolve("b.html"))).isZero();
        assertThat(Files.exists(tmp.resolve("b.html"))).isTrue();
        assertThat(out[0]).startsWith("report: ").contains("b.html");
        assertThat(out[1].strip()).startsWith("culprit report: could not open a browser").endsWith("b.html");
    }

    private int report(Browser browser, String[] out, Path page) {
        ReportCommand cmd = new ReportCommand();
        cmd.browser = browser;
        StringWriter o = new StringWriter(), e = new StringWriter();
        CommandLine cl = new CommandLine(cmd);
        cl.setOut(new PrintWriter(o));
        cl.setErr(new PrintWriter(e));
        int code = cl.execute(CASES.resolve("healthy").toString(), "--out", page.toString(), "--open");
        out[0] = o.toString();
        out[1] = e.toString();
        return code;
    }

    /** A shell script that writes its arguments, one a line, to {@code record} and exits with {@code code}. */
    private Path fakeBrowser(Path record, int code) throws Exception {
        Path script = tmp.resolve("browser-" + code + "-" + record.getFileName());
        Files.writeString(script, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + record + "'\nexit " + code + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
