package io.culprit.load.cli;

import io.culprit.load.LoadEngine;
import io.culprit.load.LoadException;
import io.culprit.load.LoadListener;
import io.culprit.load.LoadPlan;
import io.culprit.load.LoadResult;
import io.culprit.load.RateSchedule;
import io.culprit.load.RequestSpec;
import io.culprit.load.ResultJson;
import io.culprit.load.Threshold;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code culprit load}: drive HTTP load with the {@link LoadEngine} and print what it measured. */
@Command(name = "load", sortOptions = false, mixinStandardHelpOptions = true, version = "culprit load 0.1.0-SNAPSHOT",
        description = {"Drives HTTP/1.1 load with honest percentiles.",
                "Open model (--rate/--ramp): requests arrive on schedule whatever the server does; latency "
                        + "is measured from the intended send time (coordinated omission corrected) and service "
                        + "time from the actual send. Closed model (--connections only): C busy connections."},
        footer = {"", "Examples:",
                "  culprit load http://127.0.0.1:8080/orders -r 800/s -d 60s --warmup 10s",
                "  culprit load http://127.0.0.1:8080/ --ramp 100/s:30s,900/s:60s --out r.json",
                "  culprit load http://127.0.0.1:8080/ -c 50 -d 30s --threshold 'p99<200ms'",
                "  culprit load 3@http://127.0.0.1:8080/a 1@http://127.0.0.1:8080/b -r 200/s",
                "  culprit load -X POST -H 'Content-Type: application/json' --body @o.json \\",
                "      http://127.0.0.1:8080/orders -r 50/s",
                "  culprit load --requests reqs.txt -r 300/s --threshold 'errors<1%%' --local-only",
                "",
                "Exit: 0 ok, 2 bad input or unreachable target, 99 a threshold failed.",
                "Result file format: docs/LOAD.md."})
public final class LoadCommand implements Callable<Integer> {

    /** k6's convention: thresholds crossed. */
    public static final int EXIT_THRESHOLDS = 99;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "[WEIGHT@]URL", arity = "0..*",
            description = "Target URL(s), one host:port; an optional weight picks them in proportion (3@http://...).")
    List<String> urls = new ArrayList<>();

    @Option(names = {"-r", "--rate"}, paramLabel = "R/s", description = "Open model: constant arrival rate (800/s, 48000/m).")
    String rate;

    @Option(names = "--ramp", paramLabel = "RATE:DUR,...",
            description = "Open model: ramp linearly from --rate (or 0) to each RATE over each DUR, e.g. 100/s:30s,900/s:60s.")
    String ramp;

    @Option(names = {"-c", "--connections"}, paramLabel = "C",
            description = "Closed model: C connections (default 10). Open model: most connections opened (default 100).")
    Integer connections;

    @Option(names = {"-d", "--duration"}, paramLabel = "D", description = "Measured duration (default 30s, or the ramp's length).")
    String duration;

    @Option(names = "--warmup", paramLabel = "D", defaultValue = "0s", description = "Unrecorded run-in before the measured part.")
    String warmup;

    @Option(names = "--window", paramLabel = "D", defaultValue = "15s", description = "Length of the per-window table's rows (default 15s).")
    String window;

    @Option(names = "--timeout", paramLabel = "D", defaultValue = "10s", description = "Request timeout (default 10s).")
    String timeout;

    @Option(names = {"-X", "--method"}, defaultValue = "GET", description = "HTTP method (default GET).")
    String method;

    @Option(names = {"-H", "--header"}, paramLabel = "'Name: value'", description = "Request header, repeatable.")
    List<String> headers = new ArrayList<>();

    @Option(names = "--body", paramLabel = "TEXT|@FILE", description = "Request body, literal or @file.")
    String body;

    @Option(names = "--requests", paramLabel = "FILE", description = "Requests, one per line: [METHOD] [WEIGHT@]URL, or a JSON object.")
    Path requestFile;

    @Option(names = "--threads", defaultValue = "0", description = "Event-loop threads (default: min(cores, connections)).")
    int threads;

    @Option(names = "--threshold", paramLabel = "EXPR", description = "p99<200ms, errors<1%%, rps>=500, max<2s, service_p99<100ms; exit 99 if any fails.")
    List<String> thresholds = new ArrayList<>();

    @Option(names = "--out", paramLabel = "FILE", description = "Write the result as JSON (docs/LOAD.md).")
    Path out;

    @Option(names = "--progress", description = "Live progress line on stderr even when it is not a terminal.")
    boolean progress;

    @Option(names = "--local-only", description = "Refuse targets that do not resolve to a loopback address.")
    boolean localOnly;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter stdout = spec.commandLine().getOut();
        List<Threshold> checks;
        LoadPlan plan;
        try {
            checks = thresholds.stream().map(Threshold::parse).toList();
            plan = plan();
            checkWritable(out);
        } catch (LoadException e) {
            err.println("culprit load: " + e.getMessage());
            return 2;
        }
        ProgressLine line = progress || ProgressLine.stderrIsTerminal() ? new ProgressLine(err) : null;
        // Ctrl-C ends the run early but still prints the summary (and writes --out), as k6 does:
        // the hook interrupts the engine and holds the JVM until the report is out.
        Thread caller = Thread.currentThread();
        CountDownLatch reported = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            caller.interrupt();
            try {
                reported.await(plan.timeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "culprit-load-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            LoadResult result;
            try {
                result = LoadEngine.run(plan, line == null ? LoadListener.NONE : line);
            } catch (LoadException e) {
                err.println("culprit load: " + e.getMessage());
                return 2;
            } finally {
                if (line != null) {
                    line.clear();
                }
            }
            SummaryRenderer.render(result, checks, stdout);
            if (out != null) {
                ResultJson.write(result, checks, out);
                stdout.println("\n  result written to " + out);
                stdout.flush();
            }
            return checks.stream().allMatch(t -> t.passes(result)) ? 0 : EXIT_THRESHOLDS;
        } finally {
            reported.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The JVM is already exiting (Ctrl-C): the hook is running and will now return.
            }
        }
    }

    LoadPlan plan() {
        Map<String, String> hs = Args.headers(headers);
        byte[] bodyBytes = Args.body(body);
        List<RequestSpec> requests = new ArrayList<>();
        for (String u : urls) {
            requests.add(RequestFile.url(u, method, hs, bodyBytes));
        }
        if (requestFile != null) {
            requests.addAll(RequestFile.read(requestFile, method, hs, bodyBytes));
        }
        if (requests.isEmpty()) {
            throw new LoadException("no target: give a URL or --requests FILE");
        }
        Duration d = duration == null ? null : Args.duration(duration, "duration");
        LoadPlan plan;
        if (rate != null || ramp != null) {
            plan = LoadPlan.open(schedule(d), requests);
            if (connections != null) {
                plan = plan.withConnections(connections);
            }
        } else {
            plan = LoadPlan.closed(connections == null ? 10 : connections, d == null ? Duration.ofSeconds(30) : d, requests);
        }
        return plan.withWarmup(Args.duration(warmup, "warmup"))
                .withWindow(Args.duration(window, "window"))
                .withTimeout(Args.duration(timeout, "timeout"))
                .withThreads(threads)
                .withLocalOnly(localOnly);
    }

    private RateSchedule schedule(Duration d) {
        double start = rate == null ? 0 : Args.rate(rate);
        if (ramp == null) {
            return RateSchedule.constant(start, d == null ? Duration.ofSeconds(30) : d);
        }
        List<RateSchedule.Stage> stages = new ArrayList<>(Args.ramp(ramp));
        Duration rampLength = stages.stream().map(RateSchedule.Stage::duration).reduce(Duration.ZERO, Duration::plus);
        if (d != null && d.compareTo(rampLength) < 0) {
            throw new LoadException("duration " + duration + " is shorter than the ramp (" + rampLength.toMillis() / 1000.0 + "s)");
        }
        if (d != null && d.compareTo(rampLength) > 0) {
            // Hold the last rate for the rest of the duration, as k6 users expect from a ramp then plateau.
            stages.add(new RateSchedule.Stage(stages.get(stages.size() - 1).targetRate(), d.minus(rampLength)));
        }
        return new RateSchedule(start, stages);
    }

    /** Fails before the run, not after a minute of load, when the result cannot be written. */
    private static void checkWritable(Path file) {
        if (file == null) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file) || dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new LoadException("cannot write --out " + file + " (no such writable directory)");
        }
    }
}
