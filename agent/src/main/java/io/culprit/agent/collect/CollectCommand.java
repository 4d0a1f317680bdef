package io.culprit.agent.collect;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.probe.ProbeEvidence;
import io.culprit.agent.probe.Probes;
import io.culprit.jfr.LiveJfr;
import io.culprit.model.CaseFile;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code collect start|stop|status}: the evidence collection that {@code culprit diagnose} runs
 * around its load. Start opens culprit's live JFR stream; stop ends it and writes the series and
 * tables into a case-file directory on this machine (the agent runs as the same user as the CLI).
 * Start also (re)starts the framework probes (pools, requests, calls) so that their windows cover
 * exactly the collection; stop removes their weaving and writes their series and tables.
 * One collection at a time; detach ends a running one.
 */
public final class CollectCommand implements Command {
    // One per agent: a fresh class loader per attach makes this state live exactly as long as it.
    private static final AtomicReference<LiveJfr> CURRENT = new AtomicReference<>();
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
                "collect start [--probes]                 # --probes: also weave the framework probes",
                "collect stop --case DIR [--requests N]   # writes series/ and tables/ into DIR",
                "collect status",
                "",
                "examples:",
                "  collect start",
                "  collect stop --case /tmp/case-1 --requests 12000   # then: culprit diagnose --case /tmp/case-1");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (args.isEmpty()) throw new CommandException("collect: start, stop or status? (see 'help collect')");
        String action = args.get(0);
        Flags f = Flags.parse("collect " + action, args.subList(1, args.size()), List.of("--case", "--requests"), List.of("--probes"))
                .atMostPositional(0);
        switch (action) {
            case "start":
                start(ctx, f.has("--probes"));
                break;
            case "stop":
                stop(f, ctx);
                break;
            case "status":
                LiveJfr live = CURRENT.get();
                emit(ctx, live == null ? "not collecting" : "collecting since " + live.observation(0).startMs(),
                        Map.of("collecting", live != null));
                break;
            default:
                throw new CommandException("collect: unknown action '" + action + "' (start, stop or status)");
        }
    }

    private static void start(CommandContext ctx, boolean withProbes) throws CommandException {
        if (CURRENT.get() != null) throw new CommandException("collect: a collection is already running (collect stop first)");
        // Probes first: weaving retransforms classes at safepoints, and a JFR stream started before
        // would record culprit's own pauses as the target's. Fresh probes: their windows and
        // totals must cover this collection only. Opt-in for now: bench/diagnose-overhead.sh
        // measured the lab collapsing under them (docs/BENCH.md), and the host comes first.
        Probes.stop();
        Probes probes = null;
        if (withProbes) {
            try {
                probes = Probes.ensure(ctx.instrumentation());
            } catch (CommandException e) {
                throw new CommandException("collect: framework probes: " + e.getMessage());
            }
        }
        LiveJfr live;
        try {
            live = LiveJfr.start();
        } catch (IllegalStateException e) {
            Probes.stop();
            throw new CommandException("collect: " + e.getMessage());
        }
        if (!CURRENT.compareAndSet(null, live)) {
            live.close();
            throw new CommandException("collect: a collection is already running (collect stop first)");
        }
        Lifecycle.addShutdownHook(() -> {
            LiveJfr l = CURRENT.getAndSet(null);
            if (l != null) l.close();
        });
        int woven = probes == null ? 0 : probes.wovenCount();
        emit(ctx, "collecting: JFR stream with culprit's settings" + (probes == null ? "" : ", framework probes on " + woven + " method(s)"),
                Map.of("collecting", true, "probes", woven));
    }

    private static void stop(Flags f, CommandContext ctx) throws Exception {
        String dir = f.value("--case");
        if (dir == null) throw new CommandException("collect stop: --case DIR is required");
        long requests = f.longValue("--requests", 0, 0, Long.MAX_VALUE);
        LiveJfr live = CURRENT.getAndSet(null);
        if (live == null) throw new CommandException("collect stop: no collection is running (collect start first)");
        Path caseDir = Paths.get(dir);
        if (!caseDir.isAbsolute()) throw new CommandException("collect stop: --case must be an absolute path, got " + dir);
        Probes probes = Probes.stop();
        live.stop(STOP_TIMEOUT_MS);
        CaseFile caseFile = CaseFile.create(caseDir);
        live.writeTo(caseFile, requests);
        // After JFR's evidence: the probes' server-side series and tables are the more direct ones.
        List<String> probeEvidence = probes == null ? List.of() : ProbeEvidence.writeTo(probes, caseFile);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("case", caseDir.toString());
        data.put("events", live.evidence().events());
        data.put("startMs", live.observation(requests).startMs());
        data.put("endMs", live.observation(requests).endMs());
        data.put("target", live.evidence().target());
        data.put("probeEvidence", probeEvidence);
        emit(ctx, "wrote " + live.evidence().events() + " events' evidence"
                + (probeEvidence.isEmpty() ? "" : " and " + String.join(", ", probeEvidence)) + " to " + caseDir, data);
    }

    private static void emit(CommandContext ctx, String text, Object data) {
        if (ctx.json()) ctx.data(data);
        else ctx.println(text);
    }
}
