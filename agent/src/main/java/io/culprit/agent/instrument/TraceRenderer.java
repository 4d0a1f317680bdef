package io.culprit.agent.instrument;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders one invocation's tree in Arthas's layout, with times net of the tool's own measured
 * cost: a node's time minus, for each call-site pair timed inside it, that pair's cost. A call
 * whose end shares the next timing point's clock read holds its whole pair's cost inside its own
 * time (calibrated the same way), so that is taken off the call itself too. Each parent's
 * slowest child is marked, so walking down the hot path needs no arithmetic.
 */
final class TraceRenderer {

    static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    private final TraceListener listener;
    private final double pairCost;
    private final double sharedCost;
    /** Set by {@link #text} and {@link #data}: the root is timed by its advice, not a shared read. */
    private TraceNode root;

    TraceRenderer(TraceListener listener, double pairCostNanos, double sharedPairCostNanos) {
        this.listener = listener;
        this.pairCost = pairCostNanos;
        this.sharedCost = sharedPairCostNanos;
    }

    private boolean shared(TraceNode n) {
        return n != root && listener.has(n.site, TraceListener.END_SHARED);
    }

    /** The tool's cost per call of this node's site (the pair around it). */
    private double pairNanos(TraceNode n) {
        return shared(n) ? sharedCost : pairCost;
    }

    /** The tool's cost inside a node's measured time: its calls' pairs, and its own if shared. */
    private double toolNanos(TraceNode n) {
        return (shared(n) ? n.count * sharedCost : 0) + nestedNanos(n);
    }

    private double nestedNanos(TraceNode n) {
        double t = 0;
        for (TraceNode c : n.children) {
            t += c.count * pairNanos(c) + nestedNanos(c);
        }
        return t;
    }

    double netNanos(TraceNode n) {
        return Math.max(0, n.totalNanos - toolNanos(n));
    }

    double selfNanos(TraceNode n) {
        double self = netNanos(n);
        for (TraceNode c : n.children) {
            self -= netNanos(c);
        }
        return Math.max(0, self);
    }

    String label(TraceNode n) {
        MethodTarget target = listener.roots.get(n.site);
        if (target != null) {
            return target.display();
        }
        TraceListener.Site s = listener.sites.get(n.site);
        return s == null ? "?" : s.owner + ":" + s.name + "() #" + s.line;
    }

    String text(TraceNode root, Thread thread, long wallMillis) {
        this.root = root;
        StringBuilder sb = new StringBuilder();
        sb.append("`---ts=").append(TS.format(Instant.ofEpochMilli(wallMillis)))
                .append(";thread_name=").append(thread.getName()).append(";id=").append(thread.getId())
                .append(";tool_cost=").append(Math.round(pairCost)).append("ns/call,")
                .append(Math.round(sharedCost)).append("ns/adjacent call\n");
        node(sb, root, root, "    ", true, false);
        return sb.toString().stripTrailing();
    }

    private void node(StringBuilder sb, TraceNode n, TraceNode root, String indent, boolean last, boolean slowest) {
        double net = netNanos(n);
        sb.append(indent).append(last ? "`---[" : "+---[");
        if (n == root) {
            fixed(sb, net / 1e6, 3).append("ms");
        } else {
            double pct = netNanos(root) == 0 ? 0 : 100.0 * net / netNanos(root);
            fixed(sb, pct, 2).append("% ");
            fixed(sb, net / 1e6, 3).append("ms");
            if (n.count > 1) {
                fixed(sb.append(" min="), n.minNanos / 1e6, 3).append("ms,max=");
                fixed(sb, n.maxNanos / 1e6, 3).append("ms,count=").append(n.count);
            }
        }
        sb.append("] ").append(label(n));
        if (n.thrown > 0) {
            sb.append(" [throws ").append(n.thrown).append(']');
        }
        if (!reached(n).isEmpty()) {
            fixed(sb.append(" (self "), selfNanos(n) / 1e6, 3).append("ms)");
        }
        if (slowest) {
            sb.append("  <-- slowest");
        }
        sb.append('\n');
        TraceNode hot = slowestChild(n);
        List<TraceNode> shown = reached(n);
        for (int i = 0; i < shown.size(); i++) {
            TraceNode c = shown.get(i);
            node(sb, c, root, indent + (last ? "    " : "|   "), i == shown.size() - 1, c == hot);
        }
    }

    /**
     * {@code value} with {@code decimals} places (HALF_UP, as %.Nf): rendering runs for every
     * printed record, and String.format costs microseconds and a Formatter each time.
     */
    static StringBuilder fixed(StringBuilder sb, double value, int decimals) {
        long scale = 1;
        for (int i = 0; i < decimals; i++) {
            scale *= 10;
        }
        long scaled = Math.round(Math.abs(value) * scale);
        if (value < 0 && scaled != 0) {
            sb.append('-');
        }
        sb.append(scaled / scale);
        if (decimals > 0) {
            String frac = Long.toString(scaled % scale);
            sb.append('.');
            for (int i = frac.length(); i < decimals; i++) {
                sb.append('0');
            }
            sb.append(frac);
        }
        return sb;
    }

    /** Children called in this invocation (a reused tree keeps nodes of earlier ones at count 0). */
    private static List<TraceNode> reached(TraceNode n) {
        List<TraceNode> out = new ArrayList<>(n.children.size());
        for (TraceNode c : n.children) {
            if (c.count > 0) {
                out.add(c);
            }
        }
        return out;
    }

    private TraceNode slowestChild(TraceNode n) {
        List<TraceNode> shown = reached(n);
        TraceNode hot = null;
        for (TraceNode c : shown) {
            if (hot == null || c.totalNanos > hot.totalNanos) {
                hot = c;
            }
        }
        return shown.size() > 1 ? hot : null;
    }

    Map<String, Object> data(TraceNode root, Thread thread) {
        this.root = root;
        Map<String, Object> m = nodeData(root);
        m.put("thread", thread.getName());
        m.put("toolCostNanosPerCall", pairCost);
        m.put("toolCostNanosPerAdjacentCall", sharedCost);
        return m;
    }

    private Map<String, Object> nodeData(TraceNode n) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("method", label(n));
        m.put("count", n.count);
        m.put("totalMs", netNanos(n) / 1e6);
        m.put("selfMs", selfNanos(n) / 1e6);
        m.put("minMs", n.minNanos / 1e6);
        m.put("maxMs", n.maxNanos / 1e6);
        m.put("thrown", n.thrown);
        List<Object> children = new ArrayList<>();
        for (TraceNode c : reached(n)) {
            children.add(nodeData(c));
        }
        m.put("children", children);
        return m;
    }
}
