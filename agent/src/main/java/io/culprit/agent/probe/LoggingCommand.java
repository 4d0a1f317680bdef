package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Format;
import java.util.List;
import java.util.Map;

/** {@code logging}: logback events per level and logger, stack traces, time in appenders. */
public final class LoggingCommand implements Command {

    @Override
    public String name() {
        return "logging";
    }

    @Override
    public String summary() {
        return "logback events per second by level and logger, stack traces logged, time in appenders";
    }

    @Override
    public String usage() {
        return String.join("\n", "logging", "", "examples:", "  logging", "  logging --json");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (!args.isEmpty()) throw new CommandException("logging takes no arguments (got '" + args.get(0) + "')");
        Probes p = Probes.ensure(ctx.instrumentation());
        List<Map<String, Object>> rows = p.logging.rows(p.seconds());
        if (ctx.json()) {
            ctx.data(Map.of("logging", rows, "seconds", p.seconds()));
            return;
        }
        if (!p.logging.woven(p)) {
            ctx.println("no logger probed (neither logback's " + LoggingProbe.LOGBACK_LOGGER + " nor log4j2's "
                    + LoggingProbe.LOG4J_LOGGER_CONFIG + " is loaded)");
            return;
        }
        StringBuilder sb = new StringBuilder(String.format("%-6s %-48s %8s %9s %11s %11s%n",
                "LEVEL", "LOGGER", "EVENTS", "PER SEC", "STACKTRACES", "APPENDER ms"));
        for (Map<String, Object> r : rows) {
            sb.append(String.format("%-6s %-48s %8d %9.1f %11d %11.1f%n", r.get("level"),
                    Format.clip(String.valueOf(r.get("logger")), 48), r.get("events"), r.get("perSecond"),
                    r.get("withStackTrace"), r.get("appenderMs")));
        }
        ctx.println(rows.isEmpty() ? "no event logged " + p.since() : sb.toString().stripTrailing());
    }
}
