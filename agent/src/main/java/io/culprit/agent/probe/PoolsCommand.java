package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Format;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code pools}: JDBC pools (HikariCP, Tomcat's, DBCP2, c3p0, Druid), the container's worker pool, executors and commons-pool2 pools, as the probes see them now. */
public final class PoolsCommand implements Command {

    @Override
    public String name() {
        return "pools";
    }

    @Override
    public String summary() {
        return "connection, worker and object pools (HikariCP, tomcat-jdbc, DBCP2, c3p0, Druid, Tomcat, Jetty, Undertow, executors, commons-pool2): active, idle, pending, max";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "pools",
                "  Starts the framework probes if they are not running (reset removes them). A pool is",
                "  found at its first use after the start, so the first call may list none yet.",
                "",
                "examples:",
                "  pools",
                "  pools --json");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (!args.isEmpty()) throw new CommandException("pools takes no arguments (got '" + args.get(0) + "')");
        Probes p = Probes.ensure(ctx.instrumentation());
        List<Map<String, Object>> rows = p.pools.describe();
        if (ctx.json()) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("pools", rows);
            data.put("lastWindow", p.windows.lastPools());
            data.put("woven", p.woven);
            ctx.data(data);
            return;
        }
        if (rows.isEmpty()) {
            ctx.println("no pool seen yet (probing " + p.woven.size() + " framework methods; pools appear at their first use)");
            return;
        }
        StringBuilder sb = new StringBuilder(String.format("%-40s %8s %8s %8s %8s%n", "POOL", "ACTIVE", "IDLE", "PENDING", "MAX"));
        for (Map<String, Object> r : rows) {
            sb.append(String.format("%-40s %8.0f %8.0f %8.0f %8.0f%n", Format.clip(String.valueOf(r.get("pool")), 40),
                    r.get("active"), r.get("idle"), r.get("pending"), r.get("total")));
        }
        Map<String, Double> last = p.windows.lastPools();
        if (last.containsKey("dbAcquireMsMax")) {
            sb.append(String.format("last second: acquire max %.1f ms, usage max %.1f ms, usage mean %.1f ms",
                    last.get("dbAcquireMsMax"), last.get("dbUsageMsMax"), last.get("dbUsageMsMean")));
        }
        ctx.println(sb.toString().stripTrailing());
    }
}
