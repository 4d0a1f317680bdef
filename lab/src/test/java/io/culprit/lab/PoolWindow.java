package io.culprit.lab;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.time.Duration;

/** One open-model window on a lab JVM: the load's result and the lab's GC and pool counters over it. */
record PoolWindow(int rate, LabLoad.Result load, double pauseShare, long gcCount, double freeRatioAfterGc,
                  long maxPending, long acquires, long acquiresWithWaiters) {

    static PoolWindow measure(LabJvm lab, HttpRequest req, int rate, Duration window) throws IOException {
        JsonNode before = lab.stats(); // also resets the pool maxima
        long t0 = System.nanoTime();
        LabLoad.Result load = LabLoad.open(req, rate, window);
        double wallMs = (System.nanoTime() - t0) / 1e6;
        JsonNode after = lab.stats();
        JsonNode pool = after.path("pool");
        return new PoolWindow(rate, load,
                (after.path("gcPauseMs").asLong() - before.path("gcPauseMs").asLong()) / wallMs,
                after.path("gcCount").asLong() - before.path("gcCount").asLong(),
                after.path("heapFreeRatioAfterGc").asDouble(),
                pool.path("maxPending").asLong(),
                pool.path("acquires").asLong() - before.path("pool").path("acquires").asLong(),
                pool.path("acquiresWithWaiters").asLong() - before.path("pool").path("acquiresWithWaiters").asLong());
    }

    /** Share of the connection acquires that found other threads waiting for one. */
    double waiterShare() {
        return acquires == 0 ? 0 : acquiresWithWaiters / (double) acquires;
    }

    @Override
    public String toString() {
        return String.format("%s; GC pause share %.1f %%, %d GCs, heap free after last GC %.0f %%,"
                        + " acquires with waiters %d of %d (%.1f %%), max waiters %d",
                load, 100 * pauseShare, gcCount, 100 * freeRatioAfterGc, acquiresWithWaiters, acquires,
                100 * waiterShare(), maxPending);
    }
}
