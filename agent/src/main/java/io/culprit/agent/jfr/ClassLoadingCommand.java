package io.culprit.agent.jfr;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.instrument.Installation;
import io.culprit.agent.instrument.Instrumenter;
import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.Plan;
import io.culprit.agent.instrument.TargetResolver;
import io.culprit.agent.instrument.internal.Dispatcher;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import io.culprit.jfr.LiveJfr;
import io.culprit.model.Table;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code classloading [-n N] [-i ms]}: class loads that fail, service-loader and resource lookups,
 * by name and the code that asked (seed 3: optional Jackson modules probed and TransformerFactory
 * SPI scanned on every call, each walking every nested jar of a fat jar). Failed loads come from
 * the ClassNotFoundException / NoClassDefFoundError throws JFR records; lookups throw nothing, so
 * {@code ServiceLoader.load} and {@code ClassLoader.getResource(s)} are woven for the interval
 * (every caller in the JVM pays a stack walk while it runs) and reset after.
 */
public final class ClassLoadingCommand implements Command {
    @Override
    public String name() {
        return "classloading";
    }

    @Override
    public String summary() {
        return "failed class loads, service-loader and resource lookups by caller, rate/s";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "classloading [-n N] [-i ms]",
                "  -n   rows to show (default 10)",
                "  -i   observation interval in ms (default 5000)",
                "",
                "examples:",
                "  classloading",
                "  classloading -i 10000 -n 20");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        Flags f = Flags.parse("classloading", args, "-n", "-i").atMostPositional(0);
        int n = (int) f.longValue("-n", 10, 1, 1000);
        long interval = f.longValue("-i", 5000, 100, 3_600_000);
        LookupListener lookups = new LookupListener();
        Installation woven = weave(ctx, lookups);
        LiveJfr live;
        try {
            // Lookups count only inside the JFR window, so their rates and the misses' share one denominator.
            live = LiveWindow.observe(ctx, Set.of("jdk.JavaExceptionThrow"), interval, open -> lookups.counting = open);
        } finally {
            if (woven != null) woven.close();
        }
        for (LookupListener.Row r : lookups.rows.values()) {
            live.evidence().classLookup(r.kind, r.name, r.caller, r.stack, r.count.sum());
        }
        Table t = live.evidence().tables(live.observation(0)).get("classloading");
        List<Map<String, Object>> all = OwnCode.withoutAgent(t, "caller");
        List<Map<String, Object>> rows = all.subList(0, Math.min(n, all.size()));
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "class loading in %.1f s: %d groups of failed loads and lookups%s%n",
                ((Number) t.meta().get("seconds")).doubleValue(), all.size(),
                woven == null ? " (lookups not observed: no instrumentation)" : ""));
        if (rows.isEmpty()) {
            sb.append("none");
        } else {
            // "resource-lookup", the longest kind, is 15 wide
            sb.append(String.format(Locale.ROOT, "%-15s %8s %9s  %s%n", "KIND", "COUNT", "RATE/s", "NAME  from CALLER"));
            for (Map<String, Object> r : rows) {
                sb.append(String.format(Locale.ROOT, "%-15s %8d %9.1f  %s  from %s%n", r.get("kind"), ((Number) r.get("count")).longValue(),
                        ((Number) r.get("perSecond")).doubleValue(), r.get("name"), r.get("caller")));
            }
        }
        ctx.println(sb.toString().trim());
        ctx.data(Map.of("meta", t.meta(), "rows", rows));
    }

    /** Weaves the lookup methods; null when there is no Instrumentation (in-process tests) or nothing could be woven. */
    private static Installation weave(CommandContext ctx, LookupListener listener) throws Exception {
        Instrumentation inst = ctx.instrumentation();
        if (inst == null) return null;
        int serviceId = Dispatcher.INSTANCE.register(listener);
        int resourceId = Dispatcher.INSTANCE.register(listener);
        listener.serviceId = serviceId;
        Plan plan = new Plan(true, null);
        try {
            for (MethodTarget m : TargetResolver.resolve(inst, "java.util.ServiceLoader", "load", true, false)) plan.advise(m, serviceId);
            for (String method : new String[] {"getResource", "getResources"}) {
                for (MethodTarget m : TargetResolver.resolve(inst, "java.lang.ClassLoader", method, true, false)) plan.advise(m, resourceId);
            }
            Installation installation = Instrumenter.install(inst, plan, new ArrayList<>(List.of(serviceId, resourceId)));
            ctx.onCancel(installation::close);
            return installation;
        } catch (CommandException e) {
            Dispatcher.INSTANCE.unregisterAll(List.of(serviceId, resourceId));
            throw new CommandException("classloading: cannot weave the lookup methods: " + e.getMessage());
        }
    }
}
