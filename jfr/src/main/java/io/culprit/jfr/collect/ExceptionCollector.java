package io.culprit.jfr.collect;

import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;

/**
 * Table {@code exceptions}: throwables by type and throw site (the top non-JDK frame), with the
 * most frequent throw stack, rate and, when a caller knows it, whether they escaped.
 *
 * <p>{@code jdk.JavaExceptionThrow} covers every throwable; {@code jdk.JavaErrorThrow} only
 * errors, and on JDK 11-21 both fire for an Error. So error events are used only when the
 * recording had no exception events at all (a default-settings recording), never both.
 * {@code jdk.ExceptionStatistics} gives the total, reported in meta as a cross-check, and scales
 * the counts when the events are a sample ({@link ThrowSample}; meta {@code eventShare}).
 */
public final class ExceptionCollector implements EventCollector {
    static final class Group {
        final String type;
        final String site;
        long count;
        String message;
        final StackCounter stacks = new StackCounter();

        Group(String type, String site) {
            this.type = type;
            this.site = site;
        }
    }

    private final Map<String, Group> exceptions = new HashMap<>();
    private final Map<String, Group> errors = new HashMap<>();
    private final ThrowSample<Group> sample = new ThrowSample<>();
    private Map<String, Long> escapedByType;

    @Override
    public Set<String> events() {
        return Set.of("jdk.JavaExceptionThrow", "jdk.JavaErrorThrow", ThrowSample.STATISTICS);
    }

    /**
     * Throwables that reached a thread's uncaught-exception handler, by type: known only to a live
     * agent. Without it {@code caught} is null (unknown), as the catalogue says.
     */
    public void escaped(Map<String, Long> escapedByType) {
        this.escapedByType = escapedByType;
    }

    @Override
    public void accept(RecordedEvent e) {
        if (sample.statistics(e)) return;
        String name = e.getEventType().getName();
        RecordedClass cls = e.getValue("thrownClass");
        String type = cls == null ? "?" : cls.getName();
        List<String> stack = Frames.fromThrowSite(Frames.of(e.getStackTrace()));
        String site = Frames.topNonJdk(stack);
        Map<String, Group> into = name.equals("jdk.JavaErrorThrow") ? errors : exceptions;
        Group g = into.computeIfAbsent(type + "|" + site, k -> new Group(type, site));
        g.count++;
        if (into == exceptions) sample.event(e, g);
        if (g.message == null) g.message = e.getString("message");
        g.stacks.add(stack);
    }

    /**
     * The groups this recording counts (see the class comment on errors) with their throwables,
     * largest first: scaled when the exception events are a sample.
     */
    List<Map.Entry<Group, Long>> groups(double seconds) {
        Map<Group, Long> counts = new HashMap<>();
        if (exceptions.isEmpty()) for (Group g : errors.values()) counts.put(g, g.count);
        else counts = sample.counts(seconds);
        List<Map.Entry<Group, Long>> gs = new ArrayList<>(counts.entrySet());
        gs.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        return gs;
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Map<String, Object>> rows = new ArrayList<>();
        double share = exceptions.isEmpty() ? 1 : sample.share();
        for (Map.Entry<Group, Long> entry : groups(o.seconds())) {
            Group g = entry.getKey();
            long count = entry.getValue();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("type", g.type);
            r.put("site", g.site);
            r.put("count", count);
            r.put("perSecond", o.perSecond(count));
            r.put("perRequest", o.perRequest(count));
            Long escaped = escapedByType == null ? null : escapedByType.getOrDefault(g.type, 0L);
            r.put("caught", escaped == null ? null : escaped == 0);
            r.put("escaped", escaped);
            r.put("message", g.message);
            r.put("stack", g.stacks.top());
            rows.add(r);
        }
        Map<String, Object> meta = o.meta();
        meta.put("source", exceptions.isEmpty() && !errors.isEmpty() ? "jdk.JavaErrorThrow (errors only: exceptions were not recorded)" : "jdk.JavaExceptionThrow");
        if (sample.throwables() >= 0) meta.put("throwablesTotal", sample.throwables());
        // The events were a sample: counts are scaled by the throwables JFR counted.
        if (share != 1) meta.put("eventShare", share);
        return List.of(new Table("exceptions", List.of("type", "site", "count", "perSecond", "perRequest", "caught",
                "escaped", "message", "stack"), rows, meta));
    }
}
