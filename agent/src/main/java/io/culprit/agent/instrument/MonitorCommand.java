package io.culprit.agent.instrument;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.internal.Args;
import io.culprit.agent.instrument.internal.Dispatcher;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/** Per-interval call statistics of matching methods, from HdrHistogram recorders. */
public final class MonitorCommand implements Command {

    @Override
    public String name() {
        return "monitor";
    }

    @Override
    public String summary() {
        return "calls, failures and latency percentiles of methods, per interval";
    }

    @Override
    public String usage() {
        return "monitor CLASS METHOD [-c SECONDS] [-n INTERVALS] [--include-jdk] [--budget EVENTS_PER_S] [--cpu-budget PERCENT]\n"
                + "  monitor com.acme.OrderService placeOrder -c 5\n"
                + "  monitor 'com.acme.*Repository' 'find*' -c 10 -n 6\n"
                + "Columns: total, success, fail, fail-rate, avg/p50/p99/max in ms. Ctrl-C prints the last partial interval.";
    }

    @Override
    public void run(List<String> words, CommandContext ctx) throws Exception {
        Args args = Args.parse(words, Set.of("--include-jdk"), CommandRun.options(false, "-c", "-n"));
        if (args.positional().size() != 2) {
            throw new CommandException("usage: monitor CLASS METHOD [-c SECONDS] [-n INTERVALS]");
        }
        long seconds = args.number("-c", 60, 1, 86_400);
        int intervals = (int) args.number("-n", Integer.MAX_VALUE, 1, Integer.MAX_VALUE);
        List<MethodTarget> targets = TargetResolver.resolve(ctx.instrumentation(), args.positional().get(0),
                args.positional().get(1), args.has("--include-jdk"), true);

        CommandRun run = CommandRun.of(ctx, "monitor", args, intervals, false);
        List<Integer> ids = new ArrayList<>();
        MonitorListener listener = register(run, targets, ids);
        Plan plan = new Plan(false, null);
        for (int i = 0; i < targets.size(); i++) {
            plan.advise(targets.get(i), ids.get(i));
        }
        Installation installation = Instrumenter.install(ctx.instrumentation(), plan, ids);
        run.installed(installation);
        CommandRun closed = Calibration.closedRun(ctx);
        run.eventCost(Calibration.perEvent(id -> {
            MonitorListener throwaway = new MonitorListener(closed, id, id);
            throwaway.add(id, targets.get(0));
            return throwaway;
        }, false, 1));
        ctx.println(String.format("Press Ctrl-C to abort. Affect(class count: %d, method count: %d), every %d s",
                installation.classCount(), targets.size(), seconds) + installation.note());
        try {
            run.loop(TimeUnit.SECONDS.toNanos(seconds), () -> {
                if (run.claim()) {
                    report(run, listener);
                    run.done();
                }
            });
        } finally {
            if (ctx.cancelled()) {
                report(run, listener);  // the partial interval the user was waiting for
            }
        }
    }

    private static MonitorListener register(CommandRun run, List<MethodTarget> targets, List<Integer> ids) {
        int first = Dispatcher.INSTANCE.reserve(targets.size());
        MonitorListener listener = new MonitorListener(run, first, first + targets.size() - 1);
        for (int i = 0; i < targets.size(); i++) {
            listener.add(first + i, targets.get(i));
            ids.add(first + i);
            Dispatcher.INSTANCE.set(first + i, listener);
        }
        return listener;
    }

    static void report(CommandRun run, MonitorListener listener) {
        String ts = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
        List<MonitorListener.Stats> stats = listener.stats();
        Map<MonitorListener.Stats, String> methods = methodLabels(stats);
        int classWidth = 5, methodWidth = 20;
        for (MonitorListener.Stats s : stats) {
            classWidth = Math.max(classWidth, s.target.type.getName().length());
            methodWidth = Math.max(methodWidth, methods.get(s).length());
        }
        String row = " %-19s  %-" + classWidth + "s  %-" + methodWidth + "s";
        StringBuilder text = new StringBuilder(String.format(row + " %8s %8s %6s %9s %9s %9s %9s %9s%n",
                "timestamp", "class", "method", "total", "success", "fail", "fail-rate", "avg(ms)", "p50(ms)", "p99(ms)", "max(ms)"));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (MonitorListener.Stats s : stats) {
            s.interval = s.recorder.getIntervalHistogram(s.interval);
            long failedNow = s.failed.sum();
            Histogram h = s.interval;
            long total = h.getTotalCount();
            // A throw that straddles the swap is counted in the next interval: clamp, never negative.
            long failed = Math.min(total, failedNow - s.reportedFailed);
            s.reportedFailed += failed;
            long ok = total - failed;
            double avg = total == 0 ? 0 : h.getMean() / 1e6;
            double p50 = h.getValueAtPercentile(50) / 1e6;
            double p99 = h.getValueAtPercentile(99) / 1e6;
            double max = h.getMaxValue() / 1e6;
            double failRate = total == 0 ? 0 : 100.0 * failed / total;
            text.append(String.format(row + " %8d %8d %6d %8.2f%% %9.3f %9.3f %9.3f %9.3f%n",
                    ts, s.target.type.getName(), methods.get(s), total, ok, failed, failRate, avg, p50, p99, max));
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("timestamp", ts);
            json.put("class", s.target.type.getName());
            json.put("method", s.target.method.name);
            json.put("descriptor", s.target.method.descriptor);
            json.put("total", total);
            json.put("success", ok);
            json.put("fail", failed);
            json.put("avgMs", avg);
            json.put("p50Ms", p50);
            json.put("p99Ms", p99);
            json.put("maxMs", max);
            rows.add(json);
        }
        run.print(text.toString().stripTrailing(), rows);
    }

    /** The method column: its name, or its signature where the same class has another match by that name (overloads). */
    private static Map<MonitorListener.Stats, String> methodLabels(List<MonitorListener.Stats> stats) {
        Map<String, Integer> named = new HashMap<>();
        for (MonitorListener.Stats s : stats) named.merge(s.target.type.getName() + '.' + s.target.method.name, 1, Integer::sum);
        Map<MonitorListener.Stats, String> out = new HashMap<>();
        for (MonitorListener.Stats s : stats) {
            boolean overloaded = named.get(s.target.type.getName() + '.' + s.target.method.name) > 1;
            out.put(s, overloaded ? s.target.method.signature() : s.target.method.name);
        }
        return out;
    }
}
