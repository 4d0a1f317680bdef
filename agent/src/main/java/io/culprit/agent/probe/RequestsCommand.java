package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Format;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code requests}: per-route latency, handler vs container time, since the probes started. */
public final class RequestsCommand implements Command {

    @Override
    public String name() {
        return "requests";
    }

    @Override
    public String summary() {
        return "HTTP requests per route: count, p50/p99, time in the handler vs the container and filters";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "requests",
                "  Container probes (Tomcat's CoyoteAdapter, Jetty's Server, Undertow's Connectors) and Spring MVC's",
                "  DispatcherServlet; counts since they started.",
                "",
                "examples:",
                "  requests",
                "  requests --json");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (!args.isEmpty()) throw new CommandException("requests takes no arguments (got '" + args.get(0) + "')");
        Probes p = Probes.ensure(ctx.instrumentation());
        List<Map<String, Object>> rows = p.requests.routeRows();
        if (ctx.json()) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("routes", rows);
            data.put("idleGap", p.requests.idleGapRows());
            data.put("lastWindow", p.windows.lastRequests());
            data.put("seconds", p.seconds());
            ctx.data(data);
            return;
        }
        if (!p.serverWoven()) {
            ctx.println("no servlet container probed (none of Tomcat's CoyoteAdapter, Jetty's Server, Undertow's Connectors is loaded)");
            return;
        }
        StringBuilder sb = new StringBuilder(String.format("%-44s %8s %9s %9s %10s %12s%n",
                "ROUTE", "COUNT", "P50 ms", "P99 ms", "HANDLER ms", "CONTAINER ms"));
        for (Map<String, Object> r : rows) {
            sb.append(String.format("%-44s %8d %9.1f %9.1f %10s %12.1f%n", Format.clip(String.valueOf(r.get("route")), 44),
                    r.get("count"), r.get("p50Ms"), r.get("p99Ms"),
                    r.get("handlerMs") == null ? "-" : String.format("%.1f", (Double) r.get("handlerMs")), r.get("containerMs")));
        }
        sb.append(String.format("%d requests in %.0f s", p.requests.count(), p.seconds()));
        ctx.println(sb.toString());
    }
}
