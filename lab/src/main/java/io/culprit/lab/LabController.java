package io.culprit.lab;

import com.sun.management.GcInfo;
import io.culprit.lab.data.PoolMetrics;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The lab's own control and measurement endpoints, used by its tests and by culprit's demo; not
 * part of the "business" API. GET /lab/mode, POST /lab/mode?scenario=..&fixed=.., GET /lab/stats.
 */
@RestController
public class LabController {

    private final LabMode mode;
    private final PoolMetrics pool;

    public LabController(LabMode mode, PoolMetrics pool) {
        this.mode = mode;
        this.pool = pool;
    }

    @GetMapping("/lab/mode")
    public Map<String, Object> mode() {
        return Map.of("scenario", mode.scenario().slug(), "fixed", mode.fixed(), "pid", ProcessHandle.current().pid());
    }

    /**
     * Switches the fault, as a redeploy would, and collects the heap in full: a redeploy starts a fresh
     * heap, and a switch does not. Each culprit attach loads ~2,500 classes of its own that become
     * garbage at detach, and only a full collection or a concurrent cycle's remark unloads them; left
     * to the remark, fifteen attaches' worth took 284 ms in one pause of the next scenario's run
     * (docs/LAB.md).
     */
    @PostMapping("/lab/mode")
    public Map<String, Object> mode(@RequestParam String scenario, @RequestParam(defaultValue = "false") boolean fixed) {
        mode.set(Scenario.of(scenario), fixed);
        System.gc();
        return mode();
    }

    /** Counters since start (process CPU, GC, pool); pool maxima are reset by each call so windows can be measured. */
    @GetMapping("/lab/stats")
    public Map<String, Object> stats() {
        long gcCount = 0;
        long gcMillis = 0;
        GcInfo last = null;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            // Count only stop-the-world collectors' time; JDK 21+ G1 also reports concurrent cycles.
            if (!gc.getName().contains("Concurrent")) {
                gcCount += Math.max(0, gc.getCollectionCount());
                gcMillis += Math.max(0, gc.getCollectionTime());
                GcInfo info = gc instanceof com.sun.management.GarbageCollectorMXBean g ? g.getLastGcInfo() : null;
                if (info != null && (last == null || info.getEndTime() > last.getEndTime())) {
                    last = info;
                }
            }
        }
        PoolMetrics.Snapshot p = pool.snapshot();
        pool.resetMaxima();
        Runtime rt = Runtime.getRuntime();
        long cpuNanos = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
        return Map.of("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime(),
                "processCpuMs", cpuNanos / 1_000_000,
                "gcCount", gcCount, "gcPauseMs", gcMillis,
                "heapCommittedBytes", rt.totalMemory(), "heapMaxBytes", rt.maxMemory(),
                "heapFreeRatioAfterGc", last == null ? -1.0 : freeRatio(last.getMemoryUsageAfterGc()),
                "pool", p);
    }

    /** Free share of the committed heap right after a collection: G1 grows the heap while this is below MinHeapFreeRatio. */
    private static double freeRatio(Map<String, MemoryUsage> pools) {
        long used = 0;
        long committed = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            MemoryUsage u = pool.getType() == MemoryType.HEAP ? pools.get(pool.getName()) : null;
            if (u != null) {
                used += u.getUsed();
                committed += u.getCommitted();
            }
        }
        return committed == 0 ? -1 : 1 - used / (double) committed;
    }
}
