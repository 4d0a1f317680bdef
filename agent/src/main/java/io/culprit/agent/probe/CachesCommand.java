package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Format;
import java.util.List;
import java.util.Map;

/** {@code caches}: the application's hand-made LRU maps since the probes started: new keys, evictions, bound, filler. */
public final class CachesCommand implements Command {

    @Override
    public String name() {
        return "caches";
    }

    @Override
    public String summary() {
        return "hand-made LRU caches (LinkedHashMap subclasses bounded in removeEldestEntry): fills and evictions per request";
    }

    @Override
    public String usage() {
        return String.join("\n", "caches", "",
                "A map that evicts on most requests is smaller than the keys in use: each eviction is a value computed again.", "",
                "examples:", "  caches", "  caches --json");
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (!args.isEmpty()) throw new CommandException("caches takes no arguments (got '" + args.get(0) + "')");
        Probes p = Probes.ensure(ctx.instrumentation());
        List<Map<String, Object>> rows = p.lruMaps.rows(p.requests.count());
        if (ctx.json()) {
            ctx.data(Map.of("caches", rows, "requests", p.requests.count(), "seconds", p.seconds()));
            return;
        }
        if (rows.isEmpty()) {
            ctx.println("no LRU map took a new key " + p.since() + " (application subclasses of LinkedHashMap"
                    + " that declare removeEldestEntry are watched)");
            return;
        }
        StringBuilder sb = new StringBuilder(String.format("%-40s %7s %10s %10s %12s  %s%n", "MAP", "BOUND", "NEW KEYS", "EVICTED",
                "PER REQUEST", "FILLED BY"));
        for (Map<String, Object> r : rows) {
            Object bound = r.get("bound");
            Object per = r.get("evictionsPerRequest");
            sb.append(String.format("%-40s %7s %10d %10d %12s  %s%n", Format.clip(String.valueOf(r.get("map")), 40),
                    bound == null ? "-" : bound, r.get("inserts"), r.get("evictions"),
                    per == null ? "-" : String.format("%.2f", (Double) per), r.get("filler") == null ? "-" : r.get("filler")));
        }
        ctx.println(sb.toString().stripTrailing());
    }
}
