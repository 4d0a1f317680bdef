package io.culprit.jfr.collect;

import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;

/**
 * Table {@code thread-starts}: the threads started during the run, by the new thread's name
 * pattern (digits as #) and the code that started it ({@code jdk.ThreadStart}'s stack is the
 * starter's). A service that reuses pooled threads starts almost none under steady load; one that
 * starts a thread, builds a {@code java.util.Timer}, an executor or a JDK {@code HttpClient} per
 * request starts one or more per call, and pays the OS's thread creation (tens of microseconds of
 * CPU, a stack mapped and touched) each time. {@code requestPath} counts the starts whose stack
 * runs through a server's request entry. {@code families} counts the distinct values of the name's
 * first number: {@code pool-17-thread-1}, {@code pool-18-thread-1}, ... is one new executor per start.
 */
public final class ThreadStartCollector implements EventCollector {
    private static final int TOP = 20;
    /** Bound on the distinct families remembered per row: past it, the count is a floor. */
    private static final int MAX_FAMILIES = 10_000;
    private static final Pattern FIRST_NUMBER = Pattern.compile("[0-9]+");

    private static final class Row {
        final String group, site;
        long count, requestPath;
        final Set<String> families = new HashSet<>();
        final StackCounter stacks = new StackCounter();

        Row(String group, String site) {
            this.group = group;
            this.site = site;
        }
    }

    private final Map<String, Row> rows = new HashMap<>();

    @Override
    public Set<String> events() {
        return Set.of("jdk.ThreadStart");
    }

    @Override
    public void accept(RecordedEvent e) {
        RecordedThread t = e.getThread("thread");
        String name = t == null || t.getJavaName() == null ? "?" : t.getJavaName();
        List<String> stack = Frames.of(e.getStackTrace());
        String site = stack.isEmpty() ? "?" : Frames.method(Frames.topNonJdk(stack));
        String group = RuntimeCollector.threadGroup(name);
        Row r = rows.computeIfAbsent(group + '\n' + site, k -> new Row(group, site));
        r.count++;
        if (RequestWaitCollector.onRequestPath(stack)) r.requestPath++;
        Matcher m = FIRST_NUMBER.matcher(name);
        if (m.find() && r.families.size() < MAX_FAMILIES) r.families.add(m.group());
        r.stacks.add(stack);
    }

    @Override
    public List<Table> tables(Observation o) {
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort((a, b) -> Long.compare(b.count, a.count));
        List<Map<String, Object>> out = new ArrayList<>();
        for (Row r : sorted.subList(0, Math.min(TOP, sorted.size()))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("group", r.group);
            m.put("site", r.site);
            m.put("count", r.count);
            m.put("requestPath", r.requestPath);
            m.put("families", (long) r.families.size());
            m.put("stack", r.stacks.top());
            out.add(m);
        }
        return List.of(new Table("thread-starts", List.of("group", "site", "count", "requestPath", "families", "stack"), out, o.meta()));
    }
}
