package io.culprit.agent.instrument;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.expr.Expression;
import io.culprit.agent.instrument.expr.ExpressionException;
import io.culprit.agent.instrument.internal.Args;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/** The call paths that reach a method, aggregated with counts, most frequent first. */
public final class StackCommand implements Command {

    @Override
    public String name() {
        return "stack";
    }

    @Override
    public String summary() {
        return "call paths that reach a method, aggregated with counts";
    }

    @Override
    public String usage() {
        return "stack CLASS METHOD [CONDITION] [-n N] [-c SECONDS] [--include-jdk]\n"
                + "  stack org.springframework.beans.factory.support.AbstractBeanFactory createBean -n 200\n"
                + "  stack com.acme.Cache load '#cost > 50' -n 10\n"
                + "Collects N invocations (default 100), then prints each distinct path with its count;\n"
                + "with -c, also prints the running aggregate every SECONDS. Ctrl-C prints what was collected.";
    }

    @Override
    public void run(List<String> words, CommandContext ctx) throws Exception {
        Args args = Args.parse(words, Set.of("--include-jdk"), CommandRun.options(false, "-n", "-c"));
        List<String> pos = args.positional();
        if (pos.size() < 2 || pos.size() > 3) {
            throw new CommandException("usage: stack CLASS METHOD [CONDITION] [-n N]");
        }
        int limit = (int) args.number("-n", 100, 1, Integer.MAX_VALUE);
        long every = args.number("-c", 0, 0, 86_400);
        Expression condition = null;
        if (pos.size() == 3) {
            try {
                condition = Expression.parse(pos.get(2), Instrumenter.unsafe());
            } catch (ExpressionException e) {
                throw new CommandException(e.getMessage());
            }
        }
        List<MethodTarget> targets = TargetResolver.resolve(ctx.instrumentation(), pos.get(0), pos.get(1),
                args.has("--include-jdk"), condition == null);

        CommandRun run = CommandRun.of(ctx, "stack", args, limit, false);
        StackListener listener = new StackListener(run, condition);
        // Only a condition needs arguments; without one the lean advice keeps the hot path allocation-free.
        Plan plan = new Plan(condition != null, null);
        run.weave(plan, listener, targets, listener.targets);
        CommandRun closed = Calibration.closedRun(ctx);
        run.eventCost(Calibration.perEvent(id -> new StackListener(closed, null), condition != null, 1));
        try {
            run.loop(TimeUnit.SECONDS.toNanos(every), () -> report(run, listener));
        } finally {
            report(run, listener);
        }
    }

    private static void report(CommandRun run, StackListener listener) {
        List<Map.Entry<String, LongAdder>> sorted = new ArrayList<>(listener.paths.entrySet());
        sorted.sort(Comparator.comparingLong((Map.Entry<String, LongAdder> e) -> e.getValue().sum()).reversed());
        long total = sorted.stream().mapToLong(e -> e.getValue().sum()).sum();
        StringBuilder text = new StringBuilder(String.format("%d invocations, %d distinct call paths", total, sorted.size()));
        List<Map<String, Object>> data = new ArrayList<>();
        for (Map.Entry<String, LongAdder> e : sorted) {
            long n = e.getValue().sum();
            text.append(String.format("%n%n%d (%.1f%%)%n", n, 100.0 * n / Math.max(1, total)));
            for (String frame : e.getKey().split("\n")) {
                text.append("    at ").append(frame).append('\n');
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("count", n);
            row.put("frames", List.of(e.getKey().split("\n")));
            data.add(row);
        }
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("invocations", total);
        all.put("paths", data);
        run.print(text.toString().stripTrailing(), all);
    }
}
