package io.culprit.agent.probe;

/** Slow-call thresholds per call kind (CASES.md seed 4's numbers are the defaults). */
final class Thresholds {

    volatile double sqlMs = 100;
    volatile double redisMs = 10;
    volatile double httpMs = 200;
    /** Only lookups the JVM's cache missed are recorded ({@link DnsHooks}); a resolver on a LAN answers in about a millisecond. */
    volatile double dnsMs = 20;

    double slowMs(String kind) {
        switch (kind) {
            case "sql": return sqlMs;
            case "redis": return redisMs;
            case DnsHooks.KIND: return dnsMs;
            default: return httpMs;
        }
    }
}
