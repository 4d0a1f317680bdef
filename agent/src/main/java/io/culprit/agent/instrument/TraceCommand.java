package io.culprit.agent.instrument;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.expr.Expression;
import io.culprit.agent.instrument.expr.ExpressionException;
import io.culprit.agent.instrument.internal.Args;
import io.culprit.agent.instrument.internal.CallGraph;
import io.culprit.agent.instrument.internal.OverheadBreaker;
import java.util.List;
import java.util.Set;

/** The call tree below a method, with per-call-site timings, several levels deep. */
public final class TraceCommand implements Command {

    @Override
    public String name() {
        return "trace";
    }

    @Override
    public String summary() {
        return "call tree of a method with per-child timings and counts";
    }

    @Override
    public String usage() {
        return "trace CLASS METHOD [CONDITION] [-n N] [--depth D] [--skip-jdk] [--include-jdk] [--rate R]\n"
                + "      [--budget EVENTS_PER_S] [--cpu-budget PERCENT]\n"
                + "  trace org.springframework.web.servlet.DispatcherServlet doDispatch\n"
                + "  trace com.acme.OrderService placeOrder '#cost > 200' -n 3\n"
                + "  trace com.acme.OrderService placeOrder --depth 3 --skip-jdk\n"
                + "Times exclude the tool's own measured cost per call (tool_cost). --depth 1 (default) times the\n"
                + "method's own calls; each extra level also times the calls made inside those callees.\n"
                + "The condition sees #cost (ms) and throwExp. With -n up to 1024, the first N matching invocations are\n"
                + "printed; a larger -n is a stream of at most --rate per second (default " + CommandRun.DEFAULT_RATE
                + "), the rest counted as skipped.\n"
                + "The command stops itself above --budget events/s (default " + OverheadBreaker.DEFAULT_BUDGET
                + ") or when it costs more than --cpu-budget % of the process's CPU (default " + OverheadBreaker.DEFAULT_CPU_BUDGET + ").";
    }

    @Override
    public void run(List<String> words, CommandContext ctx) throws Exception {
        Args args = Args.parse(words, Set.of("--skip-jdk", "--include-jdk"), CommandRun.options(true, "-n", "--depth"));
        List<String> pos = args.positional();
        if (pos.size() < 2 || pos.size() > 3) {
            throw new CommandException("usage: trace CLASS METHOD [CONDITION] [-n N] [--depth D] [--skip-jdk]");
        }
        int limit = (int) args.number("-n", 100, 1, Integer.MAX_VALUE);
        int depth = (int) args.number("--depth", 1, 1, 10);
        Expression condition = null;
        if (pos.size() == 3) {
            try {
                condition = Expression.parse(pos.get(2), Instrumenter.unsafe());
            } catch (ExpressionException e) {
                throw new CommandException(e.getMessage());
            }
        }
        boolean includeJdk = args.has("--include-jdk");
        List<MethodTarget> roots = TargetResolver.resolve(ctx.instrumentation(), pos.get(0), pos.get(1), includeJdk, true);
        List<MethodTarget> woven = new CallGraph(ctx.instrumentation(), includeJdk).expand(roots, depth);

        CommandRun run = CommandRun.of(ctx, "trace", args, limit, true);
        TraceListener listener = new TraceListener(run, condition, args.has("--skip-jdk"));
        Plan plan = new Plan(false, listener);
        for (MethodTarget r : roots) {
            plan.advise(r, listener.addRoot(r));
        }
        for (MethodTarget m : woven) {
            plan.weaveCalls(m);
        }
        int calibrationSite = listener.addRoot(roots.get(0));
        int sharedCalibrationSite = listener.addRoot(roots.get(0));
        // Site ids are handed out while classes are transformed, so the id list is read after.
        List<Integer> ids = listener.ids;
        Installation installation = Instrumenter.install(ctx.instrumentation(), plan, ids);
        run.installed(installation);
        // Times the real path (Bridge → dispatcher → listener) on this thread, which never runs a root.
        listener.calibrate(calibrationSite, sharedCalibrationSite);
        // A pair (beforeCall + afterCall, or a root's enter + exit) counts as one event; the
        // breaker takes the dearer kind, whose both ends read the clock.
        run.eventCost(listener.pairCostNanos);
        run.events.reset();
        ctx.println(String.format("Press Ctrl-C to abort. Affect(class count: %d, method count: %d), depth %d,"
                + " tool cost %.0f ns per timed call, %.0f where adjacent calls share a clock read (subtracted)",
                installation.classCount(), plan.methodCount(), depth, listener.pairCostNanos,
                listener.sharedPairCostNanos) + installation.note());
        run.loop(0, () -> { }, listener::render);
    }
}
