package io.culprit.agent.probe;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Dependency calls a request waits on. SQL is timed at HikariCP's statement proxies, which every
 * driver behind the pool goes through; a prepared statement's text is remembered when the proxy
 * connection prepares it (the proxy does not keep it). Outbound HTTP is timed at Spring's
 * {@code AbstractClientHttpRequest.execute()} (RestTemplate and RestClient). A call slower than
 * its kind's threshold is counted as slow and kept, with its text, among the recent alerts.
 */
final class CallProbe {

    static final String PROXY_CONNECTION = "com.zaxxer.hikari.pool.ProxyConnection";
    static final String PROXY_STATEMENT = "com.zaxxer.hikari.pool.ProxyStatement";
    static final String PROXY_PREPARED = "com.zaxxer.hikari.pool.ProxyPreparedStatement";
    static final String SPRING_HTTP_REQUEST = "org.springframework.http.client.AbstractClientHttpRequest";
    private static final int ALERTS_KEPT = 50;

    private final Map<Object, String> preparedSql = Collections.synchronizedMap(new WeakHashMap<>());
    final ConcurrentHashMap<String, CallStats> calls = new ConcurrentHashMap<>();
    private final ArrayDeque<Map<String, Object>> alerts = new ArrayDeque<>();
    private final Thresholds thresholds;

    CallProbe(Thresholds thresholds) {
        this.thresholds = thresholds;
    }

    List<Hook> hooks() {
        List<Hook> h = new ArrayList<>();
        for (String prepare : new String[] {"prepareStatement", "prepareCall"}) {
            h.add(new Hook(PROXY_CONNECTION, prepare, "(Ljava/lang/String;") {
                @Override
                public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
                    if (returned != null && args[0] instanceof String) preparedSql.put(returned, (String) args[0]);
                }
            });
        }
        // execute(), executeQuery(), executeUpdate(), executeBatch(), executeLargeUpdate() of a prepared statement
        h.add(new Hook(PROXY_PREPARED, "execute*", "()") {
            @Override
            public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
                String sql = preparedSql.get(self);
                record("sql", sql == null ? "(prepared statement)" : SqlText.normalize(sql), sql, start, thrown);
            }
        });
        h.add(new Hook(PROXY_STATEMENT, "execute*", "(Ljava/lang/String;") {
            @Override
            public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
                String sql = (String) args[0];
                record("sql", SqlText.normalize(sql), sql, start, thrown);
            }
        });
        h.add(new Hook(SPRING_HTTP_REQUEST, "execute", "()") {
            @Override
            public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
                Object uri = Reflect.call(self, "getURI");
                Object method = Reflect.call(self, "getMethod");
                String text = method + " " + uri;
                record("http", method + " " + SqlText.normalizeUrl(String.valueOf(uri)), text, start, thrown);
            }
        });
        return h;
    }

    void record(String kind, String target, String text, long startNs, Throwable thrown) {
        long ns = System.nanoTime() - startNs;
        double ms = ns / 1e6;
        boolean slow = ms > thresholds.slowMs(kind);
        calls.computeIfAbsent(kind + '\u0000' + target, k -> new CallStats(kind, target)).add(ns, slow, thrown != null);
        if (slow) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("kind", kind);
            a.put("ms", Math.round(ms * 10) / 10.0);
            a.put("thresholdMs", thresholds.slowMs(kind));
            a.put("text", text);
            a.put("thread", Thread.currentThread().getName());
            a.put("epochMs", System.currentTimeMillis());
            synchronized (alerts) {
                if (alerts.size() == ALERTS_KEPT) alerts.removeFirst();
                alerts.addLast(a);
            }
        }
    }

    List<Map<String, Object>> alerts() {
        synchronized (alerts) {
            return new ArrayList<>(alerts);
        }
    }

    /**
     * Rows of table {@code calls}, most total time first.
     * @param requestMs total container time of the requests observed, for the share column (0: unknown)
     */
    List<Map<String, Object>> rows(double requestMs, long requests) {
        List<CallStats> all = new ArrayList<>(calls.values());
        all.sort(Comparator.comparingDouble(CallStats::totalMs).reversed());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (CallStats c : all) rows.add(c.row(requestMs, requests));
        return rows;
    }
}
