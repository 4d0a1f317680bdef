package io.culprit.agent.jfr;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.command.Format;
import io.culprit.agent.probe.ParkTracer;
import io.culprit.jfr.CulpritSettings;
import io.culprit.jfr.ForeignEvents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * {@code jfr start|stop|dump|status [--file PATH]}: a flight recording with culprit's own
 * settings (culprit.jfc), never the target JDK's defaults. The recording is found by its name,
 * not held in a field, so a re-attached agent can still dump or stop it.
 */
public final class JfrCommand implements Command {
    static final String NAME = "culprit";
    /** The park tracer's lease held by the running recording of this agent, if it started one. */
    private static final AtomicReference<ParkTracer.Lease> PARKS = new AtomicReference<>();
    /** The exception gate's lease held by that recording. */
    private static final AtomicReference<ExceptionGate.Lease> GATE = new AtomicReference<>();
    /** The leak watch of that recording: the leak profiler, recorded once the heap grows. */
    private static final AtomicReference<LeakWatch> LEAKS = new AtomicReference<>();

    @Override
    public String name() {
        return "jfr";
    }

    @Override
    public String summary() {
        return "flight recording with culprit's settings: start, dump, stop, status";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "jfr start [--no-samples]   # --no-samples: without JFR's CPU sampler, when async-profiler samples",
                "jfr dump [--file PATH]     # a copy of what is recorded so far; keeps recording",
                "jfr stop [--file PATH]     # writes the recording and ends it",
                "jfr status",
                "  default file: ~/.culprit/recordings/<pid>-<time>.jfr",
                "",
                "examples:",
                "  jfr start",
                "  jfr stop --file /tmp/slow.jfr   # then: culprit analyze /tmp/slow.jfr");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (args.isEmpty()) throw new CommandException("jfr: start, stop, dump or status? (see 'help jfr')");
        String action = args.get(0);
        Flags f = Flags.parse("jfr " + action, args.subList(1, args.size()), List.of("--file"), List.of("--no-samples"))
                .atMostPositional(0);
        JfrBoot.ensure();
        Optional<Recording> current = current();
        switch (action) {
            case "start":
                if (current.isPresent()) throw new CommandException("jfr: a culprit recording is already running (jfr stop first)");
                if (f.has("--file")) throw new CommandException("jfr start: --file belongs to dump and stop");
                boolean samples = !f.has("--no-samples");
                ParkTracer.Lease parks = ParkTracer.lease(ctx.instrumentation());
                ExceptionGate.Lease gate = ExceptionGate.lease(ctx.instrumentation());
                Recording r;
                try {
                    Map<String, String> settings = CulpritSettings.withoutThrows(parks.settings());
                    settings = ForeignEvents.off(samples ? settings : CulpritSettings.withoutSamples(settings));
                    r = new Recording(settings);
                    r.setName(NAME);
                    r.setToDisk(true);
                    r.start();
                    ForeignEvents.watch(r, settings);
                } catch (RuntimeException e) {
                    parks.close();
                    gate.close();
                    throw e;
                }
                PARKS.set(parks);
                GATE.set(gate);
                LEAKS.set(LeakWatch.start());
                // Detaching culprit ends its recording: nothing of ours keeps running in the target.
                Lifecycle.addShutdownHook(() -> {
                    current().ifPresent(c -> {
                        ForeignEvents.forget(c);
                        c.close();
                    });
                    releaseParks();
                    LeakWatch w = LEAKS.getAndSet(null);
                    if (w != null) w.close();
                });
                ctx.println("jfr recording " + r.getId() + " started with culprit settings (" + r.getSettings().size()
                        + " settings; lock parks from " + parks.source() + "; " + ExceptionGate.describe()
                        + (samples ? "" : "; no CPU samples (JFR's sampler off)")
                        + "; leak profiler from the first sign of a growing heap)");
                ctx.data(Map.of("action", "start", "id", r.getId(), "parkTracer", parks.traced(), "samples", samples));
                break;
            case "dump":
            case "stop":
                if (f.has("--no-samples")) throw new CommandException("jfr " + action + ": --no-samples belongs to start");
                Recording rec = current.orElseThrow(() -> new CommandException("jfr: no culprit recording running (jfr start first)"));
                Path out = f.value("--file") != null ? Paths.get(f.value("--file")).toAbsolutePath() : defaultFile();
                Files.createDirectories(out.getParent());
                if (action.equals("stop")) {
                    // The leases' own recording (the exception gate's) ends first: on JDK 17, a recording
                    // that stops while another runs gets JFR's leak-profiler samples (written at the stop)
                    // without their stacks, and those name the code that allocated a leak. JDK 25 keeps them.
                    releaseParks();
                    rec.stop();
                }
                rec.dump(out);
                LeakWatch watch = action.equals("stop") ? LEAKS.getAndSet(null) : LEAKS.get();
                String leaks = watch == null ? null : watch.describe();
                if (action.equals("stop")) {
                    ForeignEvents.forget(rec);
                    rec.close();
                    // Last, with no other recording of ours running (see LeakWatch.stopInto).
                    if (watch != null) watch.stopInto(out);
                }
                ctx.println("jfr recording " + (action.equals("stop") ? "stopped" : "dumped") + ": " + out + " (" + Format.bytes(Files.size(out))
                        + (leaks == null ? "" : "; " + leaks) + ")\n  read it with: culprit analyze " + out);
                Map<String, Object> data = new LinkedHashMap<>();
                data.put("action", action);
                data.put("file", out.toString());
                data.put("bytes", Files.size(out));
                if (watch != null) data.put("leakProfiler", watch.profiling());
                ctx.data(data);
                break;
            case "status":
                ParkTracer.Lease lease = PARKS.get();
                LeakWatch w = LEAKS.get();
                ctx.println(current.map(c -> "jfr recording " + c.getId() + " running since " + c.getStartTime()
                        + ", " + Format.bytes(c.getSize()) + " so far" + (lease == null ? "" : "; lock parks from " + lease.source())
                        + (w == null ? "" : "; " + w.describe()))
                        .orElse("no culprit recording running"));
                ctx.data(Map.of("running", current.isPresent()));
                break;
            default:
                throw new CommandException("jfr: unknown action '" + action + "', expected start, stop, dump or status");
        }
    }

    private static void releaseParks() {
        ParkTracer.Lease parks = PARKS.getAndSet(null);
        if (parks != null) parks.close();
        ExceptionGate.Lease gate = GATE.getAndSet(null);
        if (gate != null) gate.close();
    }

    static Optional<Recording> current() {
        if (!FlightRecorder.isAvailable()) return Optional.empty();
        return FlightRecorder.getFlightRecorder().getRecordings().stream()
                .filter(r -> NAME.equals(r.getName()) && r.getState() == RecordingState.RUNNING).findFirst();
    }

    private static Path defaultFile() {
        String time = new SimpleDateFormat("yyyyMMdd-HHmmss", Locale.ROOT).format(new Date());
        return Paths.get(System.getProperty("user.home"), ".culprit", "recordings", ProcessHandle.current().pid() + "-" + time + ".jfr");
    }
}
