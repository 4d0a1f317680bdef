package io.culprit.agent.collect;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.jfr.ExceptionGate;
import io.culprit.agent.jfr.JfrBoot;
import io.culprit.agent.probe.ParkTracer;
import io.culprit.agent.probe.ProbeEvidence;
import io.culprit.agent.probe.Probes;
import io.culprit.jfr.CulpritSettings;
import io.culprit.jfr.LiveJfr;
import io.culprit.model.CaseFile;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code collect start|stop|status}: the evidence collection that {@code culprit diagnose} runs
 * around its load. Start opens culprit's live JFR stream (unless {@code --no-jfr}: the caller then
 * records JFR to a file with {@code jfr start}, which costs the target far less than a stream
 * parsed inside it) and the framework probes (unless {@code --no-probes}), with fresh counters so
 * that their windows cover exactly the collection. Stop writes the series and tables into a
 * case-file directory on this machine (the agent runs as the same user as the CLI) and removes
 * the probes' weaving. One collection at a time; detach ends a running one.
 */
public final class CollectCommand implements Command {
    // One per agent: a fresh class loader per attach makes this state live exactly as long as it.
    private static final AtomicReference<Collection> CURRENT = new AtomicReference<>();

    /** What one collection runs: the JFR stream (null with --no-jfr) and whether probes are on. */
    private static final class Collection {
        final LiveJfr live;
        final ParkTracer.Lease parks;
        final ExceptionGate.Lease gate;
        final boolean probes;
        final long startMs = System.currentTimeMillis();
        /** The first of two thread dumps: threads that wait in the same place in both never moved. */
        final StuckThreads stuck = StuckThreads.start();

        Collection(LiveJfr live, ParkTracer.Lease parks, ExceptionGate.Lease gate, boolean probes) {
            this.live = live;
            this.parks = parks;
            this.gate = gate;
            this.probes = probes;
        }

        /** Ends the stream and, after it, the park tracer's and the exception gate's leases. */
        void close() {
            if (live != null) live.close();
            if (parks != null) parks.close();
            if (gate != null) gate.close();
        }
    }
    private static final long STOP_TIMEOUT_MS = 5_000;

    @Override
    public String name() {
        return "collect";
    }

    @Override
    public String summary() {
        return "evidence collection for diagnose: JFR series and tables into a case file";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "collect start [--no-probes] [--no-jfr]   # JFR stream and framework probes (pools, requests, calls, ...)",
                "collect stop --case DIR [--requests N]   # writes series/ and tables/ into DIR",
                "collect status",
                "collect weave                            # weave the probes now, before a warm-up",
                "",
                "  --no-probes  no weaving: JFR only",
                "  --no-jfr     probes only; record JFR to a file with 'jfr start' (cheaper for the target)",
                "  Probes already woven ('collect weave', or a view such as 'pools') keep their weaving and",
                "  start counting afresh: weave before warming up, so the collection does not measure",
                "  the recompilation a retransformation causes (the first one in a JVM recompiles everything).",
                "",
                "examples:",
                "  collect start",
                "  collect start --no-jfr   # with: jfr start ... jfr stop --file F",
                "  collect stop --case /tmp/case-1 --requests 12000   # then: culprit diagnose --case /tmp/case-1");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (args.isEmpty()) throw new CommandException("collect: start, stop, status or weave? (see 'help collect')");
        String action = args.get(0);
        Flags f = Flags.parse("collect " + action, args.subList(1, args.size()), List.of("--case", "--requests"),
                        List.of("--probes", "--no-probes", "--no-jfr"))
                .atMostPositional(0);
        switch (action) {
            case "start":
                if (f.has("--probes") && f.has("--no-probes")) throw new CommandException("collect start: --probes or --no-probes, not both");
                if (f.has("--no-probes") && f.has("--no-jfr")) throw new CommandException("collect start: --no-probes and --no-jfr leave nothing to collect");
                start(ctx, !f.has("--no-probes"), !f.has("--no-jfr"));
                break;
            case "stop":
                stop(f, ctx);
                break;
            case "weave":
                Probes woven;
                try {
                    woven = Probes.ensure(ctx.instrumentation());
                } catch (CommandException e) {
                    throw new CommandException("collect weave: framework probes: " + e.getMessage());
                }
                emit(ctx, "framework probes woven on " + woven.wovenCount() + " method(s); 'collect start' will count afresh",
                        Map.of("probes", woven.wovenCount()));
                break;
            case "status":
                Collection c = CURRENT.get();
                emit(ctx, c == null ? "not collecting" : "collecting since " + c.startMs + (c.live == null ? " (probes only)" : "")
                        + (c.probes ? "" : " (JFR only)"), Map.of("collecting", c != null));
                break;
            default:
                throw new CommandException("collect: unknown action '" + action + "' (start, stop, status or weave)");
        }
    }

    private static void start(CommandContext ctx, boolean withProbes, boolean withJfr) throws CommandException {
        if (CURRENT.get() != null) throw new CommandException("collect: a collection is already running (collect stop first)");
        // Probes first: weaving retransforms classes at safepoints, and a JFR stream started before
        // would record culprit's own pauses as the target's. Probes that are already woven only get
        // fresh counters (Probes.renew): their windows and totals cover this collection only.
        Probes probes = null;
        if (withProbes) {
            try {
                probes = Probes.renew(ctx.instrumentation());
            } catch (CommandException e) {
                throw new CommandException("collect: framework probes: " + e.getMessage());
            }
        } else {
            Probes.stop();
        }
        LiveJfr live = null;
        ParkTracer.Lease parks = null;
        ExceptionGate.Lease gate = null;
        if (withJfr) {
            JfrBoot.ensure();
            parks = ParkTracer.lease(ctx.instrumentation());
            gate = ExceptionGate.lease(ctx.instrumentation());
            try {
                live = LiveJfr.start(CulpritSettings.withoutThrows(parks.settings()));
            } catch (IllegalStateException e) {
                parks.close();
                gate.close();
                Probes.stop();
                throw new CommandException("collect: " + e.getMessage());
            }
        }
        Collection started = new Collection(live, parks, gate, withProbes);
        if (!CURRENT.compareAndSet(null, started)) {
            started.close();
            throw new CommandException("collect: a collection is already running (collect stop first)");
        }
        Lifecycle.addShutdownHook(() -> {
            Collection c = CURRENT.getAndSet(null);
            if (c != null) c.close();
        });
        int woven = probes == null ? 0 : probes.wovenCount();
        boolean traced = parks != null && parks.traced();
        emit(ctx, "collecting: " + (live == null ? "" : "JFR stream with culprit's settings (lock parks from " + parks.source() + ")")
                        + (probes == null ? "" : (live == null ? "" : ", ") + "framework probes on " + woven + " method(s)")
                        + (probes == null || probes.lateWeaveError() == null ? ""
                                : " (classes loaded since the weave are not probed: " + probes.lateWeaveError() + ")"),
                Map.of("collecting", true, "probes", woven, "jfr", live != null, "parkTracer", traced));
    }

    private static void stop(Flags f, CommandContext ctx) throws Exception {
        String dir = f.value("--case");
        if (dir == null) throw new CommandException("collect stop: --case DIR is required");
        long requests = f.longValue("--requests", 0, 0, Long.MAX_VALUE);
        Path caseDir = Paths.get(dir);
        if (!caseDir.isAbsolute()) throw new CommandException("collect stop: --case must be an absolute path, got " + dir);
        Collection c = CURRENT.getAndSet(null);
        if (c == null) throw new CommandException("collect stop: no collection is running (collect start first)");
        Probes probes = c.probes ? Probes.stop() : null;
        LiveJfr live = c.live;
        if (live != null) live.stop(STOP_TIMEOUT_MS);
        if (c.parks != null) c.parks.close();
        if (c.gate != null) c.gate.close();
        CaseFile caseFile = CaseFile.create(caseDir);
        if (live != null) live.writeTo(caseFile, requests);
        // After JFR's evidence: the probes' server-side series and tables are the more direct ones.
        List<String> probeEvidence = new ArrayList<>(probes == null ? List.of() : ProbeEvidence.writeTo(probes, caseFile));
        caseFile.write(c.stuck.stop(Map.of("startMs", c.startMs, "endMs", System.currentTimeMillis())));
        probeEvidence.add("tables/stuck-threads");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("case", caseDir.toString());
        data.put("events", live == null ? 0 : live.evidence().events());
        data.put("startMs", live == null ? c.startMs : live.observation(requests).startMs());
        data.put("endMs", live == null ? System.currentTimeMillis() : live.observation(requests).endMs());
        Map<String, String> target = new LinkedHashMap<>(live == null ? Map.of() : live.evidence().target());
        // For the rules' line between the service's code and its libraries (Frames.isApplication).
        target.put("appPackages", String.join(",", AppPackages.of(ctx.instrumentation())));
        data.put("target", target);
        data.put("probeEvidence", probeEvidence);
        emit(ctx, "wrote " + (live == null ? "" : live.evidence().events() + " events' evidence" + (probeEvidence.isEmpty() ? "" : " and "))
                + String.join(", ", probeEvidence) + " to " + caseDir, data);
    }

    private static void emit(CommandContext ctx, String text, Object data) {
        if (ctx.json()) ctx.data(data);
        else ctx.println(text);
    }
}
