package io.culprit.agent.probe;

import io.culprit.jfr.collect.LockCollector;
import io.culprit.model.CaseFile;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes what the probes saw into a case file (names and columns: docs/CASEFILE.md). */
public final class ProbeEvidence {

    static final List<String> ROUTES = List.of("route", "count", "p50Ms", "p99Ms", "handlerMs", "belowHandlerMs",
            "containerMs", "idleGapCorrelation", "meanMs");
    static final List<String> IDLE_GAP = List.of("gapMs", "count", "p50Ms", "p99Ms");
    static final List<String> CALLS = List.of("kind", "target", "count", "totalMs", "p99Ms", "maxMs", "slowCount",
            "shareOfRequestTime", "errors", "perRequest", "caller", "callPath", "callStack", "heldMs", "eventLoopMs", "poolWaitMs", "resultSets",
            "rows", "rowsMax", "binds", "database", "proxyBypass", "catalogVia", "reactiveClient");

    static final List<String> BEANS = List.of("bean", "type", "scope", "count", "perRequest");
    static final List<String> LOGGING = List.of("level", "events", "perSecond", "withStackTrace", "appenderMs", "logger", "message");

    static final List<String> CONSTRUCTION = List.of("type", "count", "perRequest", "caller", "meanMs");

    private ProbeEvidence() { }

    private static boolean expensiveWoven(Probes p) {
        for (String type : ConstructionProbe.EXPENSIVE) if (p.woven(type)) return true;
        return false;
    }

    /** Returns the names written, e.g. {@code series/pools}. */
    public static List<String> writeTo(Probes p, CaseFile caseFile) {
        List<String> written = new ArrayList<>();
        Series pools = p.windows.series("pools");
        if (pools != null) {
            caseFile.write(pools);
            written.add("series/pools");
        }
        Map<String, Object> meta = p.meta();
        caseFile.write(new Table("object-pools", ObjectPools.COLUMNS, p.pools.objectPools.rows(), meta));
        written.add("tables/object-pools");
        if (!p.pools.connectionPools.isEmpty()) {
            caseFile.write(new Table("db-pools", ConnectionPools.COLUMNS, p.pools.connectionPools.rows(), meta));
            written.add("tables/db-pools");
        }
        List<Map<String, Object>> executors = p.pools.executors.rows();
        if (!executors.isEmpty()) {
            caseFile.write(new Table("executors", AppExecutors.COLUMNS, executors, meta));
            written.add("tables/executors");
        }
        if (p.serverWoven()) {
            Series requests = p.windows.series("requests");
            if (requests != null) {
                caseFile.write(requests);
                written.add("series/requests");
            }
            caseFile.write(new Table("routes", ROUTES, p.requests.routeRows(), meta));
            caseFile.write(new Table("idle-gap", IDLE_GAP, p.requests.idleGapRows(), meta));
            written.add("tables/routes");
            written.add("tables/idle-gap");
        }
        if (!p.calls.calls.isEmpty() || p.callsWoven()) {
            double requestMs = p.requests.containerMs();
            caseFile.write(new Table("calls", CALLS, p.calls.rows(requestMs, p.requests.count()), meta));
            written.add("tables/calls");
        }
        if (p.woven(BeanProbe.BEAN_FACTORY)) {
            caseFile.write(new Table("beans", BEANS, p.beans.rows(p.requests.count()), meta));
            written.add("tables/beans");
        }
        if (p.logging.woven(p)) {
            caseFile.write(new Table("logging", LOGGING, p.logging.rows(p.seconds()), meta));
            written.add("tables/logging");
        }
        if (p.discardedLogs.woven(p)) {
            caseFile.write(new Table("discarded-logs", DiscardedLogs.COLUMNS, p.discardedLogs.rows(p.requests.count()), meta));
            written.add("tables/discarded-logs");
        }
        if (p.pools.onVirtualThreads()) {
            // Why the thread dumps stopped early, if they did: the rows then cover part of the run only.
            Map<String, Object> sampled = new LinkedHashMap<>(meta);
            if (p.vthreadLocks.stopReason() != null) sampled.put("samplingStopped", p.vthreadLocks.stopReason());
            caseFile.write(new Table("vthread-locks", LockCollector.COLUMNS, p.vthreadLocks.rows(), sampled));
            written.add("tables/vthread-locks");
        }
        if (expensiveWoven(p)) {
            caseFile.write(new Table("construction", CONSTRUCTION, p.construction.rows(p.requests.count()), meta));
            written.add("tables/construction");
        }
        if (!p.cacheKeys.isEmpty()) {
            caseFile.write(new Table("cache-keys", CacheKeys.COLUMNS, p.cacheKeys.rows(p.requests.count()), meta));
            written.add("tables/cache-keys");
        }
        if (!p.lruMaps.isEmpty()) {
            caseFile.write(new Table("lru-maps", LruMaps.COLUMNS, p.lruMaps.rows(p.requests.count()), meta));
            written.add("tables/lru-maps");
        }
        return written;
    }
}
