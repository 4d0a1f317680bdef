package io.culprit.cli.report;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.report.HtmlReport;
import io.culprit.report.JsonReport;
import io.culprit.report.MarkdownReport;
import io.culprit.report.Report;
import io.culprit.report.ReportBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code culprit report CASE_DIR}: the case as one self-contained HTML page (default, written to
 * {@code CASE_DIR/report.html}), or Markdown / JSON of the same content (to stdout unless
 * {@code --out}). A case without {@code findings.json} is diagnosed on the fly, not rewritten.
 *
 * <pre>
 *   culprit report target/cases/2026-11-22T08-00 --open
 *   culprit report CASE --format md &gt; ticket.md
 *   culprit report CASE --format json --out report.json
 * </pre>
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Renders a case file as one self-contained HTML page (or Markdown, JSON).")
public final class ReportCommand extends CaseCommand {
    @Parameters(index = "0", paramLabel = "CASE_DIR", description = "a case file directory (culprit diagnose, analyze)")
    Path caseDir;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "html", description = "html (default), md or json")
    String format;

    @Option(names = "--out", paramLabel = "FILE", description = "where to write (html default: CASE_DIR/report.html; md, json: stdout)")
    Path out;

    @Option(names = "--open", description = "open the HTML page in the desktop's browser")
    boolean open;

    /** Where {@code --open} sends the page; tests give it a recording fake $BROWSER. */
    Browser browser = Browser.system();

    @Override
    int run(PrintWriter stdout, PrintWriter stderr) {
        if (!knownFormat(format, List.of("html", "md", "json"), stderr)) return 2;
        CaseFile cf = open(caseDir, stderr);
        if (cf == null) return 2;
        Report report = ReportBuilder.build(cf, findings(cf));
        try {
            if (format.equals("html")) {
                Path written = write(out != null ? out : cf.dir().resolve(HtmlReport.FILE_NAME), HtmlReport.render(report));
                stdout.println("report: " + written.toAbsolutePath().normalize() + " (" + Files.size(written) / 1024 + " KB)");
                // The page is written either way: a machine without a browser is not a failure.
                if (open) browser.open(written, stderr);
                return 0;
            }
            String text = format.equals("md") ? MarkdownReport.render(report) : JsonReport.render(report);
            if (out == null) stdout.print(text);
            else stdout.println("report: " + write(out, text).toAbsolutePath().normalize());
            return 0;
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            stderr.println(name() + ": " + e.getMessage());
            return 1;
        }
    }

    /** The recorded verdicts when the case has them, so the page matches what diagnose printed. */
    static List<Finding> findings(CaseFile cf) {
        List<Finding> recorded = cf.findings();
        return recorded.isEmpty() ? Diagnosis.run(cf).findings() : recorded;
    }

    static Path write(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        return Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
