package io.culprit.cli.diagnose;

import io.culprit.cli.agent.CulpritException;
import io.culprit.diagnosis.Diagnosis;
import io.culprit.report.HtmlReport;
import io.culprit.load.LoadException;
import io.culprit.load.RequestSpec;
import io.culprit.load.cli.RequestFile;
import io.culprit.load.cli.Args;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import io.culprit.diagnosis.VerdictRenderer;
import io.culprit.model.CaseFile;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code culprit diagnose}: live ({@code <pid> --url .. --rate ..}) it attaches, collects evidence
 * under load into a case file and detaches; with {@code --case DIR} it re-runs every rule over a
 * recorded case file. Either way it writes findings.json and prints the verdict.
 */
@Command(name = "diagnose", mixinStandardHelpOptions = true,
        description = "Collects evidence under load and names the root cause; --case DIR re-runs the rules offline.",
        footer = {"", "Examples:",
                "  culprit diagnose --case DIR          # verdict from a recorded case file",
                "  culprit diagnose --case DIR --json   # the ranked findings as JSON",
                "  culprit diagnose 4242 --url http://127.0.0.1:8080/api/orders --rate 200 --duration 30s",
                "  culprit diagnose 4242 --url http://127.0.0.1:8080/api/orders --connections 20",
                "  culprit diagnose 4242 --observe --duration 60s   # no load: watch real traffic",
                "", "Writes DIR/findings.json. The case-file format: docs/CASEFILE.md."})
public final class DiagnoseCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PID", description = "Target JVM (live diagnose).")
    String pid;

    @Option(names = "--case", paramLabel = "DIR", description = "Diagnose a recorded case file instead of a live JVM.")
    Path caseDir;

    @Option(names = "--json", description = "Print the ranked findings as JSON instead of the verdict.")
    boolean json;

    @Option(names = "--url", description = "Loopback URL to drive load against (live).") String url;
    @Option(names = "--rate", description = "Open model: requests per second, e.g. 200 or 200/s.") String rate;
    @Option(names = "--connections", description = "Closed model: concurrent connections (default 10 when no --rate). With --rate: the most connections, so requests in flight (default 32); late requests wait, timed from when they were due.") Integer connections;
    @Option(names = {"-X", "--method"}, defaultValue = "GET", description = "HTTP method of the load (default GET).") String method;
    @Option(names = {"-H", "--header"}, paramLabel = "'Name: value'", description = "Request header, repeatable.")
    List<String> headers = new ArrayList<>();
    @Option(names = "--body", paramLabel = "TEXT|@FILE", description = "Request body, literal or @file.") String body;
    @Option(names = "--requests", paramLabel = "FILE", description = "A mix of requests instead of --url, one per line:"
            + " [METHOD] [WEIGHT@]URL, or a JSON object (as culprit load's).") Path requestFile;
    @Option(names = "--idle-gaps", paramLabel = "GAP[:N]", description = "Idle-gap load instead of throughput: bursts of N "
            + "(default 3) requests one after another, GAP apart, e.g. 6s:3 — exposes caches that expire while idle.") String idleGaps;
    @Option(names = "--observe", description = "Drive no load; observe the target's own traffic.") boolean observe;
    @Option(names = "--duration", defaultValue = "30s", description = "Measured time (default: ${DEFAULT-VALUE}).") String duration;
    @Option(names = "--warmup", defaultValue = "5s", description = "Unrecorded load before measuring (default: ${DEFAULT-VALUE}).") String warmup;
    @Option(names = "--settle", defaultValue = "15s", description = "At most this much more warm-up, while the JIT still"
            + " recompiles the code attaching discarded; 0s: none (default: ${DEFAULT-VALUE}).") String settle;
    @Option(names = "--no-probes", description = "Do not weave the framework probes (pools, routes, SQL/HTTP/Redis calls, "
            + "beans, logging): JFR and the cpu profiler only.") boolean noProbes;
    @Option(names = "--probes", hidden = true, description = "The default; kept for old command lines.") boolean probes;
    @Option(names = "--out", paramLabel = "DIR", description = "Case file directory for a live run (default: ./culprit-cases/<pid>-<time>).") Path out;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (caseDir == null && pid == null) {
            err.println("culprit diagnose: give a PID (live) or --case DIR (offline)");
            return 2;
        }
        if (caseDir == null) {
            CaseFile live = new LiveDiagnosis(System.err).run(livePlan());
            return verdict(live, out);
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
        return verdict(cf, out);
    }

    private int verdict(CaseFile cf, PrintWriter out) throws Exception {
        Path caseDir = cf.dir();
        Diagnosis.Result result = Diagnosis.runAndWrite(cf);
        if (json) {
            out.println(CaseFile.json().writeValueAsString(result.findings()));
        } else {
            out.print(VerdictRenderer.render(result));
            out.println();
            out.println("findings: " + caseDir.resolve("findings.json"));
            out.println("report:   " + HtmlReport.write(cf));
        }
        out.flush();
        return 0;
    }

    private static void idleGaps(LiveDiagnosis.Plan p, String spec) {
        String[] parts = spec.split(":", 2);
        p.idleGap = Args.duration(parts[0], "idle gap");
        if (parts.length == 2) {
            try {
                p.burst = Integer.parseInt(parts[1].trim());
            } catch (NumberFormatException e) {
                throw new LoadException("bad --idle-gaps burst '" + parts[1] + "' (expected GAP[:N], e.g. 6s:3)");
            }
        }
        if (p.burst < 1 || p.idleGap.isZero()) throw new LoadException("bad --idle-gaps '" + spec + "' (expected GAP[:N], e.g. 6s:3)");
    }

    private LiveDiagnosis.Plan livePlan() {
        LiveDiagnosis.Plan p = new LiveDiagnosis.Plan();
        try {
            p.pid = Long.parseLong(pid);
        } catch (NumberFormatException e) {
            throw new CulpritException("not a pid: '" + pid + "'", 2);
        }
        boolean load = url != null || requestFile != null;
        if (observe == load) {
            throw new CulpritException(observe ? "--observe drives no load: drop --url and --requests"
                    : "give --url URL or --requests FILE to drive load, or --observe", 2);
        }
        if (url != null && requestFile != null) throw new CulpritException("give --url or --requests, not both", 2);
        if (requestFile != null && idleGaps != null) throw new CulpritException("--idle-gaps drives one --url, not --requests", 2);
        try {
            if (url != null) p.url = RequestSpec.parseUrl(url);
            if (requestFile != null) {
                p.requests = RequestFile.read(requestFile, method, Args.headers(headers), Args.body(body));
                if (p.requests.isEmpty()) throw new LoadException("no request in " + requestFile);
                p.url = p.requests.get(0).uri();
            }
            if (rate != null) p.rate = Args.rate(rate);
            if (connections != null) p.connections = connections;
            p.method = method;
            p.headers = Args.headers(headers);
            p.body = Args.body(body);
            if (idleGaps != null) idleGaps(p, idleGaps);
            p.observe = observe;
            p.probes = !noProbes;
            p.duration = Args.duration(duration, "duration");
            p.warmup = Args.duration(warmup, "warmup");
            p.settle = Args.duration(settle, "settle");
        } catch (LoadException e) {
            throw new CulpritException(e.getMessage(), 2);
        }
        p.caseDir = out != null ? out : Path.of("culprit-cases", pid + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        p.commandLine = String.join(" ", spec.commandLine().getParseResult().originalArgs());
        return p;
    }
}
