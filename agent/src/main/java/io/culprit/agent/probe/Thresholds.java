package io.culprit.agent.probe;

/** Slow-call thresholds per call kind (CASES.md seed 4's numbers are the defaults). */
final class Thresholds {

    volatile double sqlMs = 100;
    volatile double redisMs = 10;
    volatile double httpMs = 200;

    double slowMs(String kind) {
        switch (kind) {
            case "sql": return sqlMs;
            case "redis": return redisMs;
            default: return httpMs;
        }
    }
}
