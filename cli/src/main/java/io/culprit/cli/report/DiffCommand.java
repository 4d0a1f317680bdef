package io.culprit.cli.report;

import io.culprit.model.CaseFile;
import io.culprit.report.CaseDiff;
import io.culprit.report.DiffRenderer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code culprit diff BEFORE AFTER}: the before/after table (p50/p90/p99, rps, GC count and
 * pause sum, pool pending, busy threads), findings resolved / still present / new, and with
 * {@code --format html} a differential CPU flame graph when both cases have
 * {@code profiles/cpu.collapsed}.
 *
 * <pre>
 *   culprit diff cases/before cases/after
 *   culprit diff cases/before cases/after --format html --out diff.html
 * </pre>
 */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = "Compares two case files: before/after table, findings resolved or new, differential flame graph.")
public final class DiffCommand extends CaseCommand {
    @Parameters(index = "0", paramLabel = "BEFORE_CASE", description = "the case file before the change")
    Path before;

    @Parameters(index = "1", paramLabel = "AFTER_CASE", description = "the case file after the change")
    Path after;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", description = "text (default), md, html or json")
    String format;

    @Option(names = "--out", paramLabel = "FILE", description = "write to FILE instead of stdout")
    Path out;

    @Override
    int run(PrintWriter stdout, PrintWriter stderr) {
        if (!knownFormat(format, List.of("text", "md", "html", "json"), stderr)) return 2;
        CaseFile b = open(before, stderr), a = b == null ? null : open(after, stderr);
        if (a == null) return 2;
        try {
            CaseDiff d = CaseDiff.of(b, ReportCommand.findings(b), a, ReportCommand.findings(a));
            String text = switch (format) {
                case "md" -> DiffRenderer.markdown(d);
                case "html" -> DiffRenderer.html(d);
                case "json" -> DiffRenderer.json(d);
                default -> DiffRenderer.text(d);
            };
            if (out == null) stdout.print(text);
            else stdout.println("diff: " + ReportCommand.write(out, text).toAbsolutePath().normalize());
            return 0;
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            stderr.println(name() + ": " + e.getMessage());
            return 1;
        }
    }
}
