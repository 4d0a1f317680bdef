package io.culprit.jfr.collect;

import io.culprit.model.ClientLibraries;
import io.culprit.model.Table;
import io.culprit.model.Targets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;

/**
 * Table {@code request-waits}: time request threads spend off the CPU in a sleep or in blocking
 * socket or file I/O that no framework probe times, by what they waited on and the application
 * code that waited. A service's latency can be made of a back-off that sleeps, or of a dependency
 * behind a client culprit does not know (a raw socket, gRPC, LDAP, SMTP, a cache's own protocol):
 * JFR sees both ({@code jdk.ThreadSleep}, {@code jdk.SocketRead}, {@code jdk.FileRead}) where
 * the probes see nothing. A wait is on a request's path when its stack runs through a server's
 * request entry; one inside a probed client is left to the {@code calls} table, and one in the
 * server's own code (the response written to a slow client) is not a dependency. Only waits over
 * the events' thresholds in culprit.jfc are seen (1 ms sleeps, 5 ms I/O), so the totals are a floor.
 * A wait on an event loop's thread ({@code EventLoops}: Reactor Netty, Netty, Vert.x) is on the
 * request path whatever its stack, and counted in {@code eventLoop}: it stalls every connection
 * that loop serves.
 *
 * <p>Table {@code task-waits}: the same socket and file waits, off the request path, inside a task
 * a request can wait for (a {@code FutureTask}, a {@code CompletableFuture}'s async step, a
 * fork-join task): when requests park on a hand-off, this is what the other side waited on
 * (lock-contention reads it). Sleeps are left out there: a background loop's sleep is no task's.
 */
public final class RequestWaitCollector implements EventCollector {
    private static final int TOP = 20;
    /** Frames through which a server hands a thread a request (servlet containers, WebFlux, Jetty, Undertow). */
    private static final String[] REQUEST_ENTRIES = {
        "jakarta.servlet.http.HttpServlet.service", "javax.servlet.http.HttpServlet.service",
        "org.apache.catalina.connector.CoyoteAdapter.service", "org.springframework.web.reactive.DispatcherHandler.",
        "org.eclipse.jetty.server.Server.handle", "io.undertow.server.Connectors.executeRootHandler"
    };

    /**
     * The servers' own code: a socket wait there is the server reading the request or writing the
     * response to its client (Tomcat's {@code NioChannel.write} under a slow reader), not a dependency.
     */
    private static final String[] SERVERS = {
        "org.apache.tomcat.", "org.apache.coyote.", "org.apache.catalina.", "org.eclipse.jetty.", "io.undertow.", "org.xnio.",
        "reactor.netty.http.server.", "io.netty."
    };

    private static final class Row {
        final String kind, target, site;
        long events, eventLoop;
        double waitMs, maxMs, minMs = Double.MAX_VALUE;
        final StackCounter stacks = new StackCounter();

        Row(String kind, String target, String site) {
            this.kind = kind;
            this.target = target;
            this.site = site;
        }
    }

    /** Frames that run a task whose result a caller can wait for. */
    private static final String[] TASKS = {
        "java.util.concurrent.FutureTask.run", "java.util.concurrent.CompletableFuture$Async", "java.util.concurrent.ForkJoinTask.doExec"
    };

    /**
     * Libraries that sleep for their caller (Guava's RateLimiter through Uninterruptibles, Bucket4j,
     * commons-lang's ThreadUtils): the wait was decided by the code that called them. A service whose
     * requests queued in a RateLimiter was told the culprit was Uninterruptibles.sleepUninterruptibly.
     */
    private static final String[] WAIT_HELPERS = {
        "com.google.common.util.concurrent.", "io.github.bucket4j.", "org.apache.commons.lang3.ThreadUtils."
    };

    private static boolean waitHelper(String frame) {
        for (String p : WAIT_HELPERS) if (frame.startsWith(p)) return true;
        return false;
    }

    private final Map<String, Row> rows = new HashMap<>();
    private final Map<String, Row> taskRows = new HashMap<>();

    @Override
    public Set<String> events() {
        return Set.of("jdk.ThreadSleep", "jdk.SocketRead", "jdk.SocketWrite", "jdk.FileRead", "jdk.FileWrite", "jdk.FileForce");
    }

    @Override
    public void accept(RecordedEvent e) {
        List<String> stack = Frames.of(e.getStackTrace());
        String type = e.getEventType().getName();
        // An event loop's thread serves requests whatever its (deep, cut) stack shows: its waits are theirs.
        boolean eventLoop = EventCollector.onEventLoop(e);
        Map<String, Row> into = eventLoop || onPath(stack, REQUEST_ENTRIES) ? rows
                : !type.equals("jdk.ThreadSleep") && onPath(stack, TASKS) ? taskRows : null;
        if (into == null) return;
        String site = null;
        for (String f : stack) {
            if (ClientLibraries.isProbed(f)) return;
            if (site == null && !Frames.isJdk(f) && !ClientLibraries.isClient(f) && !waitHelper(f)) {
                site = Frames.method(f);
            }
        }
        String kind, target;
        switch (type) {
            case "jdk.ThreadSleep": kind = "sleep"; target = "Thread.sleep"; break;
            case "jdk.SocketRead": case "jdk.SocketWrite":
                kind = "socket";
                String host = e.getString("host");
                target = (host == null || host.isEmpty() ? e.getString("address") : host) + ":" + e.getInt("port");
                break;
            // A disk flush (FileChannel.force), apart from reads and writes: its cure is flushing less often.
            case "jdk.FileForce": kind = "fsync"; target = e.getString("path"); break;
            // No path: a stream over a file descriptor, such as a child process's output or stdin.
            default: kind = "file"; target = e.getString("path") == null ? Targets.PIPE : e.getString("path");
        }
        String waiter = site == null ? "?" : site;
        for (String server : SERVERS) if (waiter.startsWith(server)) return;
        double ms = EventCollector.ms(e.getDuration());
        Row r = into.computeIfAbsent(kind + '\n' + target + '\n' + waiter, k -> new Row(kind, target, waiter));
        r.events++;
        if (eventLoop) r.eventLoop++;
        r.waitMs += ms;
        r.maxMs = Math.max(r.maxMs, ms);
        r.minMs = Math.min(r.minMs, ms);
        r.stacks.add(stack);
    }

    /** Whether a stack runs through a server's request entry. */
    static boolean onRequestPath(List<String> stack) {
        return onPath(stack, REQUEST_ENTRIES);
    }

    private static boolean onPath(List<String> stack, String[] entries) {
        for (int i = stack.size() - 1; i >= 0; i--) {
            for (String entry : entries) if (stack.get(i).startsWith(entry)) return true;
        }
        return false;
    }

    @Override
    public List<Table> tables(Observation o) {
        return List.of(table("request-waits", rows, o), table("task-waits", taskRows, o));
    }

    private static Table table(String name, Map<String, Row> rows, Observation o) {
        List<Row> sorted = new ArrayList<>(rows.values());
        sorted.sort((a, b) -> Double.compare(b.waitMs, a.waitMs));
        List<Map<String, Object>> out = new ArrayList<>();
        for (Row r : sorted.subList(0, Math.min(TOP, sorted.size()))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", r.kind);
            m.put("target", r.target);
            m.put("site", r.site);
            m.put("events", r.events);
            m.put("waitMs", r.waitMs);
            m.put("maxMs", r.maxMs);
            // The shortest recorded wait: waits that never fall below a fixed delay are a timer's, not a peer's work.
            m.put("minMs", r.minMs);
            m.put("eventLoop", r.eventLoop);
            m.put("stack", r.stacks.top());
            out.add(m);
        }
        return new Table(name, List.of("kind", "target", "site", "events", "waitMs", "maxMs", "minMs", "eventLoop", "stack"), out, o.meta());
    }
}
