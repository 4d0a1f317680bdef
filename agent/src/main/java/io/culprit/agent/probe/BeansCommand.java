package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Format;
import java.util.List;
import java.util.Map;

/** {@code beans}: Spring beans created since the probes started (prototype beans per request). */
public final class BeansCommand implements Command {

    @Override
    public String name() {
        return "beans";
    }

    @Override
    public String summary() {
        return "Spring bean creations since the probes started, per bean, with per-request counts";
    }

    @Override
    public String usage() {
        return String.join("\n", "beans", "", "examples:", "  beans", "  beans --json");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (!args.isEmpty()) throw new CommandException("beans takes no arguments (got '" + args.get(0) + "')");
        Probes p = Probes.ensure(ctx.instrumentation());
        List<Map<String, Object>> rows = p.beans.rows(p.requests.count());
        if (ctx.json()) {
            ctx.data(Map.of("beans", rows, "requests", p.requests.count(), "seconds", p.seconds()));
            return;
        }
        if (!p.woven(BeanProbe.BEAN_FACTORY)) {
            ctx.println("no Spring bean factory probed (AbstractAutowireCapableBeanFactory is not loaded)");
            return;
        }
        StringBuilder sb = new StringBuilder(String.format("%-36s %-44s %-10s %8s %11s%n", "BEAN", "TYPE", "SCOPE", "COUNT", "PER REQUEST"));
        for (Map<String, Object> r : rows) {
            Object per = r.get("perRequest");
            sb.append(String.format("%-36s %-44s %-10s %8d %11s%n", Format.clip(String.valueOf(r.get("bean")), 36),
                    tail(String.valueOf(r.get("type")), 44), r.get("scope"), r.get("count"),
                    per == null ? "-" : String.format("%.1f", (Double) per)));
        }
        ctx.println(rows.isEmpty() ? "no bean created " + p.since() : sb.toString().stripTrailing());
    }

    /** A type's end is what tells beans apart (the simple name), so long names lose their start. */
    private static String tail(String s, int width) {
        return s.length() <= width ? s : "…" + s.substring(s.length() - width + 1);
    }
}
