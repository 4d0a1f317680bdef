package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.command.Format;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code calls}: SQL and outbound HTTP calls, their time, and the slow ones with their text. */
public final class CallsCommand implements Command {

    @Override
    public String name() {
        return "calls";
    }

    @Override
    public String summary() {
        return "dependency calls (SQL via HikariCP, Redis, HTTP): time, calls per request, where from, slow-call alerts";
    }

    @Override
    public String usage() {
        return String.join("\n",
                "calls [--slow-sql MS] [--slow-redis MS] [--slow-http MS] [--slow-dns MS]",
                "  Thresholds default to 100 ms (SQL), 10 ms (Redis), 200 ms (HTTP) and 20 ms (DNS lookups that",
                "  reach the resolver), and stay set while the probes run.",
                "",
                "examples:",
                "  calls",
                "  calls --slow-sql 50 --json");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        Flags f = Flags.parse("calls", args, "--slow-sql", "--slow-redis", "--slow-http", "--slow-dns").atMostPositional(0);
        Probes p = Probes.ensure(ctx.instrumentation());
        if (f.value("--slow-sql") != null) p.thresholds.sqlMs = f.longValue("--slow-sql", 100, 0, 3_600_000);
        if (f.value("--slow-redis") != null) p.thresholds.redisMs = f.longValue("--slow-redis", 10, 0, 3_600_000);
        if (f.value("--slow-http") != null) p.thresholds.httpMs = f.longValue("--slow-http", 200, 0, 3_600_000);
        if (f.value("--slow-dns") != null) p.thresholds.dnsMs = f.longValue("--slow-dns", 20, 0, 3_600_000);
        List<Map<String, Object>> rows = p.calls.rows(p.requests.containerMs(), p.requests.count());
        List<Map<String, Object>> alerts = p.calls.alerts();
        if (ctx.json()) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("calls", rows);
            data.put("alerts", alerts);
            data.put("thresholdsMs", Map.of("sql", p.thresholds.sqlMs, "redis", p.thresholds.redisMs, "http", p.thresholds.httpMs,
                    "dns", p.thresholds.dnsMs));
            ctx.data(data);
            return;
        }
        StringBuilder sb = new StringBuilder(String.format("%-5s %-60s %7s %7s %10s %8s %8s %5s %9s  %s%n",
                "KIND", "TARGET", "COUNT", "PER REQ", "TOTAL ms", "P99 ms", "MAX ms", "SLOW", "ROWS/EXEC", "FROM"));
        for (Map<String, Object> r : rows) {
            Object perRequest = r.get("perRequest");
            sb.append(String.format("%-5s %-60s %7d %7s %10.1f %8.1f %8.1f %5d %9s  %s%n", r.get("kind"),
                    Format.clip(String.valueOf(r.get("target")), 60), r.get("count"),
                    perRequest == null ? "-" : String.format("%.1f", (Double) perRequest), r.get("totalMs"),
                    r.get("p99Ms"), r.get("maxMs"), r.get("slowCount"), rowsPerResult(r), r.get("caller")));
        }
        for (Map<String, Object> a : alerts) {
            sb.append(String.format("SLOW %s %.1f ms (> %.0f ms) on %s: %s%n", a.get("kind"), a.get("ms"),
                    a.get("thresholdMs"), a.get("thread"), a.get("text")));
        }
        ctx.println(rows.isEmpty() ? "no calls seen " + p.since() : sb.toString().stripTrailing());
    }

    /** A statement's mean rows per result read ({@link ResultRows}); "-" for other calls and unread results. */
    private static String rowsPerResult(Map<String, Object> r) {
        Object results = r.get("resultSets"), rows = r.get("rows");
        if (!(results instanceof Long) || !(rows instanceof Long) || (Long) results == 0) return "-";
        return String.format("%.1f", (double) (Long) rows / (Long) results);
    }
}
