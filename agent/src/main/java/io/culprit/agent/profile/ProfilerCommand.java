package io.culprit.agent.profile;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import one.convert.Arguments;
import one.convert.JfrToPprof;

/**
 * {@code profiler start|stop|status}: async-profiler inside the target. Always tells which engine
 * really sampled: where perf events are forbidden (containers, seccomp, perf_event_paranoid),
 * async-profiler silently runs {@code cpu} on {@code ctimer}, without kernel frames.
 *
 * <p>The profile is always recorded as JFR (async-profiler's own writer) and converted at stop:
 * JFR is the one output that records the engine actually used, and it is what {@code culprit
 * analyze} and async-profiler's converter read.
 */
public final class ProfilerCommand implements Command {
    private static final Set<String> EVENTS = Set.of("cpu", "wall", "alloc", "lock", "itimer", "ctimer");
    private static final Set<String> FORMATS = Set.of("html", "collapsed", "jfr", "pprof");
    private static final String INTERVAL = "\\d+(ns|us|ms|s|k|m|g|K|M|G)?";

    @Override
    public String name() {
        return "profiler";
    }

    @Override
    public String summary() {
        return "async-profiler: CPU, wall-clock, allocation and lock flame graphs; reports the engine used";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "profiler start [--event cpu|wall|alloc|lock|ctimer|itimer] [--interval N] [--lock N]",
                "profiler stop [--format html|collapsed|jfr|pprof] [--file PATH] [--jfr PATH]",
                "profiler status",
                "",
                "  --event      cpu: CPU time on perf events (kernel frames too), else ctimer; ctimer: CPU time",
                "               by per-thread timers, no kernel frames, far cheaper for a server that switches",
                "               threads often (8.5 % vs ~0 % CPU per request on the overhead bench, docs/BENCH.md);",
                "               itimer: one process-wide timer",
                "  --interval   cpu/wall/ctimer/itimer: sampling period (10ms default, e.g. 1ms, 500us);",
                "               alloc: bytes between samples (e.g. 512k); lock: minimum wait (e.g. 1ms)",
                "  --lock       with a sampled event: also record contended locks in the same session",
                "               (async-profiler's lock tracer: monitors, and parks on ReentrantLock,",
                "               ReentrantReadWriteLock and Semaphore, not a pool thread's wait for work);",
                "               every wait of at least N and a share of shorter ones. In the raw",
                "               recording only (--jfr), not in the flame graph",
                "  --jfr        stop: also keep the raw recording (all events) at PATH",
                "  --format     html flame graph (default), collapsed stacks, the raw jfr recording,",
                "               or pprof (gzipped protobuf: go tool pprof -http=: FILE)",
                "  --file       where stop writes the profile (default ~/.culprit/profiles/<pid>-<time>.<ext>)",
                "",
                "examples:",
                "  profiler start                      # CPU, 10 ms",
                "  profiler start --event wall --interval 20ms",
                "  profiler start --event ctimer       # CPU at the lowest cost (what diagnose runs)",
                "  profiler stop --format collapsed --file /tmp/cpu.collapsed",
                "  profiler stop --format jfr          # then: culprit analyze <file>",
                "  profiler stop --format pprof --file /tmp/cpu.pb.gz");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (args.isEmpty()) throw new CommandException("profiler: start, stop or status? (see 'help profiler')");
        String action = args.get(0);
        List<String> rest = args.subList(1, args.size());
        switch (action) {
            case "start": start(rest, ctx); break;
            case "stop": stop(rest, ctx); break;
            case "status":
                Flags.parse("profiler status", rest).atMostPositional(0);
                status(ctx);
                break;
            default: throw new CommandException("profiler: unknown action '" + action + "', expected start, stop or status");
        }
    }

    private void start(List<String> args, CommandContext ctx) throws Exception {
        Flags f = Flags.parse("profiler start", args, "--event", "--interval", "--lock").atMostPositional(0);
        String event = f.value("--event") == null ? "cpu" : f.value("--event");
        if (!EVENTS.contains(event)) throw new CommandException("profiler: unknown event '" + event + "', expected cpu, wall, alloc, lock, itimer or ctimer");
        String interval = f.value("--interval");
        if (interval != null && !interval.matches(INTERVAL)) {
            throw new CommandException("profiler: bad --interval '" + interval + "' (e.g. 10ms, 500us, 512k)");
        }
        String lock = f.value("--lock");
        if (lock != null && !sampled(event)) {
            throw new CommandException("profiler: --lock goes with a sampled event (cpu, ctimer, itimer, wall); for a lock profile use --event lock");
        }
        if (lock != null && !lock.matches(INTERVAL)) throw new CommandException("profiler: bad --lock '" + lock + "' (e.g. 1ms, 100us)");
        AsyncProfilerLib lib = AsyncProfilerLib.locate();
        ProfilerState state = new ProfilerState(lib.workDir());
        if (running(lib)) throw new CommandException("profiler: already running (profiler status, profiler stop)");
        state.clear();
        String expected = expectedEngine(lib, event);
        StringBuilder cmd = new StringBuilder("start,event=").append(event);
        if (sampled(event)) cmd.append(",interval=").append(interval == null ? "10ms" : interval);
        else if (interval != null) cmd.append(',').append(event).append('=').append(interval);
        if (lock != null) cmd.append(",lock=").append(lock);
        cmd.append(",jfr,file=").append(state.recording);
        String warnings = lib.execute(cmd.toString(), false);
        Properties p = new Properties();
        p.setProperty("event", event);
        p.setProperty("interval", interval == null ? (sampled(event) ? "10ms" : "default") : interval);
        p.setProperty("engine", expected);
        if (lock != null) p.setProperty("lock", lock);
        p.setProperty("startedMs", Long.toString(System.currentTimeMillis()));
        state.save(p);
        // Detaching culprit must not leave a sampler running in the target.
        Lifecycle.addShutdownHook(() -> stopQuietly(lib, state));
        ctx.println("profiler started: event " + event + ", interval " + p.getProperty("interval") + ", engine " + describe(event, expected)
                + (lock == null ? "" : ", contended locks from " + lock + " (in the raw recording: stop --jfr FILE)")
                + (warnings.isEmpty() ? "" : "\n" + warnings));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("action", "start");
        data.put("event", event);
        data.put("interval", p.getProperty("interval"));
        data.put("engine", expected);
        data.put("fallback", "cpu".equals(event) && !"perf_events".equals(expected));
        ctx.data(data);
    }

    /** Sampled by time (an interval applies): cpu, wall and the two timer engines of cpu. */
    static boolean sampled(String event) {
        return "cpu".equals(event) || "wall".equals(event) || "itimer".equals(event) || "ctimer".equals(event);
    }

    /**
     * What async-profiler will pick: for {@code cpu} it tries perf events and falls back to
     * ctimer. {@code check} on a perf event (cpu-clock) runs the same perf_event_open probe
     * without starting anything. The recording's own {@code engine} setting confirms it at stop.
     */
    static String expectedEngine(AsyncProfilerLib lib, String event) {
        if (!"cpu".equals(event)) return event;
        try {
            lib.execute("check,event=cpu-clock", true);
            return "perf_events";
        } catch (Exception perfUnavailable) {
            return "ctimer";
        }
    }

    static String describe(String event, String engine) {
        if ("cpu".equals(event) && "ctimer".equals(engine)) {
            return "ctimer (FALLBACK: perf events are not available here; CPU time is sampled by timers, no kernel frames)";
        }
        return engine;
    }

    private static boolean running(AsyncProfilerLib lib) throws Exception {
        return lib.execute("status", true).startsWith("Profiling is running");
    }

    private static void stopQuietly(AsyncProfilerLib lib, ProfilerState state) {
        try {
            if (running(lib)) lib.execute("stop", false);
            state.clear();
        } catch (Exception ignored) {
            // detach continues; the agent log records hook failures
        }
    }

    private void stop(List<String> args, CommandContext ctx) throws Exception {
        Flags f = Flags.parse("profiler stop", args, "--format", "--file", "--jfr").atMostPositional(0);
        String format = f.value("--format") == null ? "html" : f.value("--format");
        if (!FORMATS.contains(format)) throw new CommandException("profiler: unknown format '" + format + "', expected html, collapsed, jfr or pprof");
        AsyncProfilerLib lib = AsyncProfilerLib.locate();
        ProfilerState state = new ProfilerState(lib.workDir());
        if (!running(lib)) throw new CommandException("profiler: not running (profiler start first)");
        Path out = f.value("--file") != null ? Paths.get(f.value("--file")).toAbsolutePath() : defaultFile(lib, format);
        Properties p = state.load();
        lib.execute("stop", false);
        String event = p.getProperty("event");
        Profile profile = Profile.read(state.recording, event == null ? "cpu" : event);
        if (event == null && profile.settings.get("event") != null) { // the session's properties are gone: trust the recording
            event = profile.settings.get("event");
            profile = Profile.read(state.recording, event);
        }
        if (f.value("--jfr") != null) copy(state.recording, Paths.get(f.value("--jfr")).toAbsolutePath());
        // The recording's engine setting names the CPU/wall sampler; alloc and lock run their own tracers.
        String engine = sampled(event) && profile.engine() != null ? profile.engine() : p.getProperty("engine", String.valueOf(event));
        Files.createDirectories(out.getParent());
        switch (format) {
            case "jfr": copy(state.recording, out); break;
            case "collapsed": profile.writeCollapsed(out); break;
            case "pprof": writePprof(state.recording, event, out); break;
            default: FlameGraphHtml.write(profile.collapsed, event + " profile, engine " + engine + ", " + profile.samples + " samples", out);
        }
        state.clear();
        report(ctx, event, engine, profile, format, out);
    }

    /** The raw recording, as --format jfr and --jfr keep it. */
    private static void copy(Path recording, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        Files.copy(recording, to, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * async-profiler's own converter, so pprof sees the same samples and frame names as its other
     * outputs. It picks the event type from the flags (execution samples unless alloc or lock) and
     * gzips when {@code output} ends in "gz", as {@code go tool pprof} and pprof's web UI expect.
     * Class names dotted, as in culprit's other outputs (the converter's default is a/b/C).
     */
    private static void writePprof(Path recording, String event, Path out) throws IOException {
        Arguments a = new Arguments();
        a.output = "pb.gz";
        a.dot = true;
        a.alloc = "alloc".equals(event);
        a.lock = "lock".equals(event);
        JfrToPprof.convert(recording.toString(), out.toString(), a);
    }

    private static void report(CommandContext ctx, String event, String engine, Profile profile, String format, Path out) {
        StringBuilder sb = new StringBuilder();
        sb.append("profiler stopped: event ").append(event).append(", engine ").append(describe(event, engine))
                .append(", ").append(profile.samples).append(" samples\n");
        sb.append(format).append(" written to ").append(out).append('\n');
        List<Map<String, Object>> hottest = new ArrayList<>();
        if (profile.samples > 0) {
            sb.append("hottest frames (self):\n");
            for (Map.Entry<String, Long> e : profile.hottest(5)) {
                sb.append(String.format(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / profile.samples, e.getKey()));
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("frame", e.getKey());
                row.put("samples", e.getValue());
                hottest.add(row);
            }
        }
        ctx.println(sb.toString().trim());
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("action", "stop");
        data.put("event", event);
        data.put("engine", engine);
        data.put("fallback", "cpu".equals(event) && !"perf_events".equals(engine));
        data.put("samples", profile.samples);
        data.put("format", format);
        data.put("file", out.toString());
        data.put("hottest", hottest);
        ctx.data(data);
    }

    private static Path defaultFile(AsyncProfilerLib lib, String format) {
        String ext = format.equals("pprof") ? "pb.gz" : format;
        String time = new SimpleDateFormat("yyyyMMdd-HHmmss", Locale.ROOT).format(new Date());
        return lib.workDir().resolve(ProcessHandle.current().pid() + "-" + time + "." + ext);
    }

    private void status(CommandContext ctx) throws Exception {
        AsyncProfilerLib lib = AsyncProfilerLib.locate();
        String status = lib.execute("status", true).trim();
        Properties p = new ProfilerState(lib.workDir()).load();
        boolean on = status.startsWith("Profiling is running");
        String event = p.getProperty("event", "?");
        ctx.println(on ? status + " (event " + event + ", interval " + p.getProperty("interval", "?") + ", engine "
                + describe(event, p.getProperty("engine", "?")) + ")" : "profiler not running");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("running", on);
        if (on) {
            data.put("event", event);
            data.put("engine", p.getProperty("engine"));
            data.put("status", status);
        }
        data.put("library", lib.library().toString());
        ctx.data(data);
    }
}
