package io.culprit.agent.probe;

import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The call probe's table rows, as the dependency-call tests look them up. */
final class CallRows {

    private CallRows() { }

    /** The row of {@code kind target}; fails naming the rows there are. */
    static Map<String, Object> row(Probes p, String kind, String target) {
        return p.calls.rows(0, 0).stream().filter(r -> kind.equals(r.get("kind")) && target.equals(r.get("target")))
                .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " row " + target + " in " + p.calls.rows(0, 0)));
    }

    /**
     * The row of {@code kind target} once it has counted {@code count} calls: asynchronous clients
     * (Lettuce's event loop, HttpClient's own threads) record a moment after the caller got its reply.
     */
    static Map<String, Object> waitForRow(Probes p, String kind, String target, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<Map<String, Object>> rows = p.calls.rows(0, 0);
            for (Map<String, Object> r : rows) {
                if (kind.equals(r.get("kind")) && target.equals(r.get("target")) && (Long) r.get("count") >= count) return r;
            }
            if (System.nanoTime() > deadline) throw new AssertionError("no " + kind + " row " + target + " ×" + count + " in " + rows);
            Thread.sleep(10);  // polling for another thread's record, not standing in for it
        }
    }

    /** The request probe's row of {@code route}; fails naming the routes there are. */
    static Map<String, Object> route(Probes p, String route) {
        return p.requests.routeRows().stream().filter(r -> route.equals(r.get("route"))).findFirst()
                .orElseThrow(() -> new AssertionError("no route " + route + " in " + p.requests.routeRows()));
    }

    /** The failed requests in the windows closed so far (the series' errors column summed); 0 before the first window. */
    static double requestErrors(Probes p) {
        io.culprit.model.Series requests = p.windows.series("requests");
        return requests == null ? 0 : java.util.Arrays.stream(requests.column("errors").orElseThrow()).sum();
    }

    /** Polls for what the probes' own threads record (their windows close once a second); false after 10 s. */
    static boolean until(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(20);  // polling another thread's record, not standing in for it
        }
        return true;
    }

    static boolean redisUp() {
        return listening(6379);
    }

    static boolean postgresUp() {
        return listening(5432);
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
