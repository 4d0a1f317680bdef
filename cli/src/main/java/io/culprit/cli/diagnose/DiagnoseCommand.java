package io.culprit.cli.diagnose;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.VerdictRenderer;
import io.culprit.model.CaseFile;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code culprit diagnose --case DIR}: re-runs every rule over a recorded case file, writes its
 * findings.json and prints the verdict. The live form ({@code diagnose <pid> --url .. --rate ..})
 * collects the case file first; until it is wired it says so and exits 2.
 */
@Command(name = "diagnose", mixinStandardHelpOptions = true,
        description = "Collects evidence under load and names the root cause; --case DIR re-runs the rules offline.",
        footer = {"", "Examples:",
                "  culprit diagnose --case DIR          # verdict from a recorded case file",
                "  culprit diagnose --case DIR --json   # the ranked findings as JSON",
                "  culprit diagnose 4242 --url http://127.0.0.1:8080/ --rate 800  # live (soon)",
                "", "Writes DIR/findings.json. The case-file format: docs/CASEFILE.md."})
public final class DiagnoseCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PID", description = "Target JVM (live diagnose).")
    String pid;

    @Option(names = "--case", paramLabel = "DIR", description = "Diagnose a recorded case file instead of a live JVM.")
    Path caseDir;

    @Option(names = "--json", description = "Print the ranked findings as JSON instead of the verdict.")
    boolean json;

    // Accepted so the live form parses today; used once live collection is wired.
    @Option(names = "--url", hidden = true) String url;
    @Option(names = "--rate", hidden = true) String rate;
    @Option(names = "--connections", hidden = true) Integer connections;
    @Option(names = "--observe", hidden = true) boolean observe;
    @Option(names = "--duration", hidden = true) String duration;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (caseDir == null) {
            err.println(pid == null ? "culprit diagnose: give --case DIR (live diagnose <pid> is not available yet)"
                    : "culprit diagnose: live diagnose is not available yet; use --case DIR");
            return 2;
        }
        if (pid != null) {
            err.println("culprit diagnose: give either a PID or --case DIR, not both");
            return 2;
        }
        if (!Files.isDirectory(caseDir)) {
            err.println("culprit diagnose: no such case directory: " + caseDir);
            return 2;
        }
        CaseFile cf;
        try {
            cf = CaseFile.open(caseDir);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            // Jackson's messages span lines (source excerpt); the first names the problem.
            err.println("culprit diagnose: " + e.getMessage().lines().findFirst().orElse("unreadable case file"));
            return 2;
        }
        Diagnosis.Result result = Diagnosis.runAndWrite(cf);
        if (json) {
            out.println(CaseFile.json().writeValueAsString(result.findings()));
        } else {
            out.print(VerdictRenderer.render(result));
            out.println();
            out.println("findings: " + caseDir.resolve("findings.json"));
        }
        out.flush();
        return 0;
    }
}
