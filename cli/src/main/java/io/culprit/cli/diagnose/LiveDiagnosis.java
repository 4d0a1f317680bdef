package io.culprit.cli.diagnose;

import com.fasterxml.jackson.databind.JsonNode;
import io.culprit.cli.agent.AgentClient;
import io.culprit.cli.agent.CulpritException;
import io.culprit.cli.agent.Frame;
import io.culprit.cli.agent.RunFile;
import io.culprit.jfr.JfrEvidence;
import io.culprit.jfr.JfrFiles;
import io.culprit.jfr.collect.Observation;
import io.culprit.load.LoadEngine;
import io.culprit.load.LoadException;
import io.culprit.load.LoadListener;
import io.culprit.load.LoadPlan;
import io.culprit.load.LoadResult;
import io.culprit.load.RateSchedule;
import io.culprit.load.RequestSpec;
import io.culprit.load.ResultJson;
import io.culprit.load.WindowStats;
import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.HostReclaim;
import io.culprit.model.Series;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The live half of {@code culprit diagnose}: attach, start the collectors, drive the load (or
 * watch real traffic), stop, write the case file, detach. What it writes is the only thing the
 * rules read, so a live run and {@code diagnose --case} on its directory give the same verdict.
 */
public final class LiveDiagnosis {

    /** What one live run should do. */
    public static final class Plan {
        public long pid;
        public URI url;
        public String method = "GET";
        public Map<String, String> headers = Map.of();
        public byte[] body;
        /** A mix of requests (diagnose --requests) in place of the one at {@link #url}; null for that one. */
        public List<RequestSpec> requests;
        public Duration idleGap;     // idle-gap shape when set: bursts of `burst` requests, this far apart
        public int burst = 3;
        public double rate;          // open model when > 0
        public int connections;      // closed model when > 0 and rate == 0; with a rate, the most connections
        public boolean observe;      // no load: watch real traffic
        public Duration duration = Duration.ofSeconds(30);
        public Duration warmup = Duration.ofSeconds(5);
        /** At most this much more warm-up while the JIT still recompiles what attaching discarded. */
        public Duration settle = Duration.ZERO;
        public Duration window = Duration.ofSeconds(2);
        public Path caseDir;
        public String commandLine = "";
        public boolean probes = true; // framework probes (pools, routes, SQL/HTTP/Redis calls, beans, logging)
    }

    private final PrintStream progress;

    public LiveDiagnosis(PrintStream progress) {
        this.progress = progress;
    }

    /** Runs the plan and returns the case file it wrote. */
    public CaseFile run(Plan plan) throws Exception {
        LoadPlan load = plan.observe ? null : loadPlan(plan);
        IdleGapLoad idle = plan.idleGap == null || plan.observe ? null
                : new IdleGapLoad(plan.url, plan.method, plan.headers, plan.body, plan.idleGap, plan.burst,
                        new ProcessFaults(plan.pid));
        boolean ours = RunFile.read(plan.pid).isEmpty();
        step(1, "attaching to JVM " + plan.pid);
        long t0 = System.nanoTime();
        AgentClient agent = AgentClient.connect(plan.pid);
        step(1, "agent ready in " + ms(t0) + " ms" + (ours ? "" : " (reusing the agent already there)"));
        Files.createDirectories(plan.caseDir);
        Path caseDir = plan.caseDir.toAbsolutePath();
        CaseFile cf = CaseFile.create(caseDir);
        try {
            // Weave first: the first retransformation in a JVM discards all compiled code, and the
            // warm-up then pays for the recompilation instead of the measured window (docs/BENCH.md).
            boolean probes = plan.probes && command(agent, "collect weave", false) != null;
            // JFR too: turning it on the first time retransforms JDK classes (sockets, files,
            // Throwable) and so discards compiled code as well. The CLI later reads only the
            // measured window of the recording. The target only records (culprit's settings cost
            // it little) and the CLI parses the file afterwards: a stream parsed inside the target
            // costs it more (docs/BENCH.md). The probes count in the target.
            // async-profiler samples the CPU below; JFR's own sampler beside it would be a second
            // one, feeding the same tables, so the recording runs without it and the profiler's
            // samples fill them (JfrFiles.addProfilerSamples). Not when the user's own profile
            // holds the profiler: then it is JFR's.
            JsonNode status = command(agent, "profiler status", false);
            boolean profilerFree = status != null && !status.path("running").asBoolean(true);
            command(agent, profilerFree ? "jfr start --no-samples" : "jfr start", true);
            if (load != null && !plan.warmup.isZero()) {
                step(2, "warming up for " + plan.warmup.toSeconds() + " s (not recorded)");
                double before = compilationMs(agent);
                LoadEngine.run(warmupOf(load, plan, plan.warmup), LoadListener.NONE);
                settle(agent, load, plan, before, plan.warmup);
            }
            // CPU time sampled by per-thread timers (ctimer), not perf events: on a server that hands
            // each request between threads, perf events cost 8.5 % CPU per request on a VM and
            // ctimer nothing measurable (bench/twin-overhead.sh, docs/BENCH.md). Kernel frames,
            // which only perf events give, are not what the rules read.
            boolean profiling = command(agent, "profiler start --event ctimer --interval 10ms", false) != null;
            if (profilerFree && !profiling) progress.println("      (no CPU samples in this case: the hotspot tables stay empty)");
            if (probes) command(agent, "collect start --no-jfr", true);
            long start = System.currentTimeMillis();
            LoadResult result = null;
            if (idle != null) {
                step(3, String.format("load: bursts of %d requests %.1f s apart for %d s on %s", plan.burst,
                        plan.idleGap.toMillis() / 1000.0, plan.duration.toSeconds(), plan.url));
                idle.run(plan.duration, progress);
            } else if (load != null) {
                step(3, String.format("load: %s for %d s on %s", plan.rate > 0 ? fmtRate(plan.rate) : plan.connections + " connections",
                        plan.duration.toSeconds(), target(plan)));
                result = LoadEngine.run(load, new LoadListener() {
                    @Override
                    public void onWindow(WindowStats w) {
                        progress.printf("      %4.0f rps  p50 %6.1f ms  p99 %7.1f ms  errors %d%n", w.achievedRps(),
                                w.latency().getValueAtPercentile(50) / 1000.0, w.latency().getValueAtPercentile(99) / 1000.0, w.errors());
                    }
                });
            } else {
                step(3, "observing real traffic for " + plan.duration.toSeconds() + " s");
                Thread.sleep(plan.duration.toMillis()); // observe mode: the target's own traffic is the workload
            }
            long end = System.currentTimeMillis();
            long requests = idle != null ? idle.requests() : result == null ? 0 : result.requests();
            step(4, "writing the case file " + caseDir);
            // The recording stops first: writing the probes' evidence loads culprit's own classes in
            // the target, which a running recording would count as the application's class loading.
            Path recording = cf.profile("culprit.jfr");
            command(agent, "jfr stop --file " + recording, true);
            Map<String, String> target = new LinkedHashMap<>();
            if (probes) target.putAll(target(plan.pid, command(agent, "collect stop --case " + caseDir + " --requests " + requests, true)));
            Observation window = new Observation(start, end, requests);
            JfrEvidence ev = JfrFiles.read(recording, window);
            if (profiling) {
                // The profiler's raw recording only lends its samples to the tables; kept out of
                // profiles/, where the report looks for flame graphs in every .jfr.
                Path samples = caseDir.resolve(".cpu-samples.jfr");
                try {
                    boolean stopped = command(agent, "profiler stop --format collapsed --file " + cf.profile("cpu.collapsed")
                            + (profilerFree ? " --jfr " + samples : ""), false) != null;
                    if (stopped && profilerFree) JfrFiles.addProfilerSamples(samples, window, ev);
                } finally {
                    Files.deleteIfExists(samples);
                }
            }
            ev.writeTo(cf, window);
            target.putAll(ev.target());
            target.put("pid", Long.toString(plan.pid));
            String reclaim = HostReclaim.describe();
            if (!reclaim.isEmpty()) target.put("hostReclaim", reclaim);
            if (idle != null) {
                cf.write(idle.idleGapTable());
                cf.write(idle.requestsSeries(plan.window.toMillis()));
            } else if (result != null) {
                ResultJson.write(result, List.of(), caseDir.resolve("load.json"));
                cf.write(requestsSeries(result));
            }
            cf.write(CaseInfo.of(plan.observe ? "observe" : "diagnose", start, end, plan.commandLine,
                    target));
        } finally {
            if (ours) {
                command(agent, "stop", false);
                step(5, "agent detached");
            }
        }
        return cf;
    }

    static LoadPlan loadPlan(Plan p) {
        try {
            List<RequestSpec> reqs = p.requests != null ? p.requests : List.of(new RequestSpec(p.method, p.url, p.headers, p.body, 1));
            LoadPlan lp = p.rate > 0
                    ? LoadPlan.open(RateSchedule.constant(p.rate, p.duration), reqs).withConnections(openCap(p))
                    : LoadPlan.closed(p.connections > 0 ? p.connections : 10, p.duration, reqs);
            return lp.withWindow(p.window).withLocalOnly(true);
        } catch (LoadException e) {
            throw new CulpritException(e.getMessage(), 2);
        }
    }

    /**
     * Open model: the most requests in flight at once (--connections, default {@link #OPEN_CAP}).
     * A target that falls behind the rate would otherwise get a connection, and so a server
     * thread, per late request: a GC-bound service at 100 req/s on a loaded machine reached 91
     * busy Tomcat threads, thrashed its 64 MB heap ever harder and took minutes to answer the
     * agent's {@code jfr stop}. Capped, the late requests wait in culprit with their latency
     * counted from when they were due (coordinated omission stays corrected), and the target is
     * diagnosed at the overload a real client pool would also impose, as k6's maxVUs does.
     */
    /** What the load drives, for the progress line: the URL, or the first of the mix and how many more. */
    static String target(Plan p) {
        if (p.requests == null) return String.valueOf(p.url);
        RequestSpec first = p.requests.get(0);
        return first.method() + " " + first.uri() + (p.requests.size() > 1 ? " and " + (p.requests.size() - 1) + " more requests" : "");
    }

    static int openCap(Plan p) {
        return p.connections > 0 ? p.connections : OPEN_CAP;
    }

    static final int OPEN_CAP = 32;

    static LoadPlan warmupOf(LoadPlan load, Plan p, Duration d) {
        List<RequestSpec> reqs = load.requests();
        LoadPlan w = p.rate > 0 ? LoadPlan.open(RateSchedule.constant(p.rate, d), reqs).withConnections(openCap(p))
                : LoadPlan.closed(load.connections(), d, reqs);
        return w.withLocalOnly(true);
    }

    /** The JIT compiling at least this many cores' worth of time is still recompiling: measure later. */
    static final double JIT_SETTLED_CORES = 0.25;
    static final Duration SETTLE_STEP = Duration.ofSeconds(2);

    /**
     * More warm-up, {@link #SETTLE_STEP} at a time up to {@code plan.settle}, while the JIT spends
     * more than {@link #JIT_SETTLED_CORES} of a core compiling: attaching and starting JFR discard
     * the JVM's compiled code, and on two cores the recompilation took 28-52 % of the CPU samples of
     * a 20 s window after a 5 s warm-up, diluting every share the rules read.
     */
    private void settle(AgentClient agent, LoadPlan load, Plan plan, double before, Duration last) throws Exception {
        if (plan.settle.isZero() || !Double.isFinite(before)) return;
        long until = System.nanoTime() + plan.settle.toNanos();
        double cores = jitCores(before, compilationMs(agent), last);
        while (cores >= JIT_SETTLED_CORES && System.nanoTime() < until) {
            step(2, String.format("the JIT is recompiling after the attach (%.1f cores): %d s more warm-up", cores,
                    SETTLE_STEP.toSeconds()));
            double from = compilationMs(agent);
            LoadEngine.run(warmupOf(load, plan, SETTLE_STEP), LoadListener.NONE);
            cores = jitCores(from, compilationMs(agent), SETTLE_STEP);
        }
    }

    /** Compile time over wall time: the cores' worth the JIT spent; NaN when unknown. */
    static double jitCores(double fromMs, double toMs, Duration over) {
        return Double.isFinite(fromMs) && Double.isFinite(toMs) ? (toMs - fromMs) / over.toMillis() : Double.NaN;
    }

    /** The target's accumulated JIT compile time ({@code jvm}'s jit section), NaN when it does not say. */
    private double compilationMs(AgentClient agent) {
        JsonNode jvm = command(agent, "jvm", false);
        JsonNode ms = jvm == null ? null : jvm.path("jit").path("compilationMs");
        return ms != null && ms.isNumber() ? ms.asDouble() : Double.NaN;
    }

    /** The client's view per window, in the catalogue's {@code requests} series. */
    static Series requestsSeries(LoadResult r) {
        Series.Builder b = Series.builder("requests", r.plan().window().toMillis())
                .unit("rps", "1/s").unit("p50Ms", "ms").unit("p99Ms", "ms");
        for (WindowStats w : r.windows()) {
            Map<String, Number> row = new LinkedHashMap<>();
            row.put("rps", w.achievedRps());
            if (!Double.isNaN(w.targetRequests())) row.put("targetRps", w.targetRps());
            boolean any = w.latency().getTotalCount() > 0;
            row.put("p50Ms", any ? w.latency().getValueAtPercentile(50) / 1000.0 : Double.NaN);
            row.put("p90Ms", any ? w.latency().getValueAtPercentile(90) / 1000.0 : Double.NaN);
            row.put("p99Ms", any ? w.latency().getValueAtPercentile(99) / 1000.0 : Double.NaN);
            row.put("maxMs", any ? w.latency().getMaxValue() / 1000.0 : Double.NaN);
            row.put("errors", w.errors());
            row.put("inFlight", w.inFlight());
            b.row(w.startEpochMs(), row);
        }
        return b.build();
    }

    private static Map<String, String> target(long pid, JsonNode collected) {
        Map<String, String> t = new LinkedHashMap<>();
        if (collected != null) collected.path("target").fields().forEachRemaining(e -> t.put(e.getKey(), e.getValue().asText()));
        t.put("pid", Long.toString(pid));
        return t;
    }

    /** Runs one agent command; its JSON data, or null. A required command's failure ends the run. */
    private JsonNode command(AgentClient agent, String cmd, boolean required) {
        AtomicReference<JsonNode> data = new AtomicReference<>();
        List<String> errors = new ArrayList<>();
        int code = agent.run(cmd, true, 120, f -> {
            if (f.type == Frame.Type.DATA) data.set(f.data);
            else if (f.type == Frame.Type.ERR) errors.add(f.text);
        });
        if (code != 0) {
            String why = errors.isEmpty() ? "exit code " + code : errors.get(0);
            if (required) throw new CulpritException("'" + cmd + "' failed in JVM " + agent.pid() + ": " + why);
            progress.println("      (skipped: " + why + ")");
            return null;
        }
        return data.get() == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : data.get();
    }

    private void step(int n, String what) {
        progress.println("[" + n + "/5] " + what);
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static String fmtRate(double r) {
        return (r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r)) + "/s";
    }
}
