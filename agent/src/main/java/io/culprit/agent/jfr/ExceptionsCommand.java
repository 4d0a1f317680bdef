package io.culprit.agent.jfr;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.Flags;
import io.culprit.jfr.LiveJfr;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code exceptions [-n N] [-i ms]}: which throwables the application throws, from where, how
 * often, and whether they escape. Swallowed exceptions are invisible in logs and cost a stack
 * walk each (seed 3's ClassNotFoundException, seed 5's NotWritablePropertyException): this names
 * them. Source: JFR's jdk.JavaExceptionThrow (see culprit.jfc for its cost) and an escape counter.
 */
public final class ExceptionsCommand implements Command {
    static final Set<String> EVENTS = Set.of("jdk.JavaExceptionThrow", "jdk.JavaErrorThrow");
    private static final int STACK_LINES = 8;

    @Override
    public String name() {
        return "exceptions";
    }

    @Override
    public String summary() {
        return "top thrown exception types with their throw sites and stacks, rate/s, caught or escaped";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "exceptions [-n N] [-i ms]",
                "  -n   how many type/site groups to show (default 5)",
                "  -i   observation interval in ms (default 5000)",
                "",
                "examples:",
                "  exceptions                 # 5 s, top 5",
                "  exceptions -n 10 -i 10000");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        Flags f = Flags.parse("exceptions", args, "-n", "-i").atMostPositional(0);
        int n = (int) f.longValue("-n", 5, 1, 1000);
        long interval = f.longValue("-i", 5000, 100, 3_600_000);
        LiveJfr live;
        Map<String, Long> escaped;
        try (EscapeCounter escapes = new EscapeCounter()) {
            ctx.onCancel(escapes::close);
            live = LiveWindow.observe(ctx, EVENTS, interval);
            escaped = escapes.escaped();
        }
        live.evidence().escaped(escaped);
        Table t = live.evidence().tables(live.observation(0)).get("exceptions");
        List<Map<String, Object>> all = OwnCode.withoutAgent(t, "site");
        List<Map<String, Object>> rows = all.subList(0, Math.min(n, all.size()));
        ctx.println(render(t, all, rows));
        ctx.data(Map.of("meta", t.meta(), "rows", rows));
    }

    static String render(Table t, List<Map<String, Object>> all, List<Map<String, Object>> rows) {
        StringBuilder sb = new StringBuilder();
        double seconds = ((Number) t.meta().get("seconds")).doubleValue();
        Object share = t.meta().get("eventShare");
        sb.append(String.format(Locale.ROOT, "exceptions thrown in %.1f s: %d type/site groups%s%s%n", seconds, all.size(),
                rows.size() < all.size() ? " (top " + rows.size() + ")" : "",
                // The exception gate kept a sample: say so, since the counts are estimates from it.
                share == null ? "" : String.format(Locale.ROOT, "; counts scaled from a %.1f %% sample of the events",
                        ((Number) share).doubleValue() * 100)));
        if (rows.isEmpty()) return sb.append("none").toString();
        sb.append(String.format(Locale.ROOT, "%8s %9s %-7s %s%n", "COUNT", "RATE/s", "CAUGHT", "TYPE  at SITE"));
        for (Map<String, Object> r : rows) {
            Object caught = r.get("caught");
            String c = caught == null ? "?" : (Boolean) caught ? "yes" : "ESCAPED";
            sb.append(String.format(Locale.ROOT, "%8d %9.1f %-7s %s  at %s%s%n", ((Number) r.get("count")).longValue(),
                    ((Number) r.get("perSecond")).doubleValue(), c, r.get("type"), r.get("site"),
                    r.get("message") == null ? "" : "  \"" + r.get("message") + "\""));
            @SuppressWarnings("unchecked")
            List<String> stack = (List<String>) r.get("stack");
            List<String> shown = new ArrayList<>(stack.subList(0, Math.min(STACK_LINES, stack.size())));
            for (String frame : shown) sb.append("                           ").append(frame).append('\n');
            if (stack.size() > shown.size()) sb.append("                           ... ").append(stack.size() - shown.size()).append(" more\n");
        }
        return sb.toString().trim();
    }
}
