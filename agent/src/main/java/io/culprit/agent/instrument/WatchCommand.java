package io.culprit.agent.instrument;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.expr.Expression;
import io.culprit.agent.instrument.expr.ExpressionException;
import io.culprit.agent.instrument.internal.Args;
import java.util.List;
import java.util.Set;

/** Arguments, return values and exceptions of matching calls, through a sandboxed expression. */
public final class WatchCommand implements Command {

    @Override
    public String name() {
        return "watch";
    }

    @Override
    public String summary() {
        return "params, return value or exception of method calls, through an OGNL-like expression";
    }

    @Override
    public String usage() {
        return "watch CLASS METHOD [EXPRESSION] [CONDITION] [-b|-s|-e|-f] [-x DEPTH] [-n N] [--include-jdk] [--rate R]\n"
                + "      [--budget EVENTS_PER_S] [--cpu-budget PERCENT]\n"
                + "  watch com.acme.OrderService placeOrder '{params, returnObj, throwExp}' -x 2\n"
                + "  watch org.springframework.util.ClassUtils forName '{params[0], throwExp}' -e\n"
                + "  watch com.acme.OrderService placeOrder 'returnObj' 'params[0].items.size() > 3 && #cost > 100'\n"
                + "-b before the call, -s after a normal return, -e after a throw, -f after either (default).\n"
                + "Names: params, target, returnObj, throwExp, isBefore, isReturn, isThrow, clazz, method, #cost (ms).\n"
                + "Static calls (@Cls@m()), static fields, constructors and arbitrary methods need the agent started with --unsafe.\n"
                + "With -n up to 1024, the first N matching calls are printed; a larger -n is a stream of at most\n"
                + "--rate per second (default " + CommandRun.DEFAULT_RATE + "), the rest counted as skipped.";
    }

    @Override
    public void run(List<String> words, CommandContext ctx) throws Exception {
        Args args = Args.parse(words, Set.of("-b", "-s", "-e", "-f", "--include-jdk"), CommandRun.options(true, "-n", "-x"));
        List<String> pos = args.positional();
        if (pos.size() < 2 || pos.size() > 4) {
            throw new CommandException("usage: watch CLASS METHOD [EXPRESSION] [CONDITION] [-b|-s|-e|-f] [-x DEPTH] [-n N]");
        }
        int limit = (int) args.number("-n", 100, 1, Integer.MAX_VALUE);
        int expand = (int) args.number("-x", 1, 0, 6);
        Expression express = parse(pos.size() > 2 ? pos.get(2) : "{params, target, returnObj}");
        Expression condition = pos.size() > 3 ? parse(pos.get(3)) : null;
        boolean b = args.has("-b");
        boolean s = args.has("-s");
        boolean e = args.has("-e");
        boolean f = args.has("-f") || !(b || s || e);
        List<MethodTarget> targets = TargetResolver.resolve(ctx.instrumentation(), pos.get(0), pos.get(1),
                args.has("--include-jdk"), false);

        CommandRun run = CommandRun.of(ctx, "watch", args, limit, true);
        WatchListener listener = new WatchListener(run, express, condition, b, s || f, e || f, expand);
        Plan plan = new Plan(true, null);
        run.weave(plan, listener, targets, listener.targets);
        // enterArgs and exitArgs each count an event.
        CommandRun closed = Calibration.closedRun(ctx);
        run.eventCost(Calibration.perEvent(id -> new WatchListener(closed, express, null, b, s || f, e || f, expand),
                true, 2));
        run.loop(0, () -> { }, listener::render);
    }

    private static Expression parse(String text) throws CommandException {
        try {
            return Expression.parse(text, Instrumenter.unsafe());
        } catch (ExpressionException ex) {
            throw new CommandException(ex.getMessage());
        }
    }
}
