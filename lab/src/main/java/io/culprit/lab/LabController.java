package io.culprit.lab;

import io.culprit.lab.data.PoolMetrics;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
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

    @PostMapping("/lab/mode")
    public Map<String, Object> mode(@RequestParam String scenario, @RequestParam(defaultValue = "false") boolean fixed) {
        mode.set(Scenario.of(scenario), fixed);
        return mode();
    }

    /** Counters since start (process CPU, GC, pool); pool maxima are reset by each call so windows can be measured. */
    @GetMapping("/lab/stats")
    public Map<String, Object> stats() {
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            // Count only stop-the-world collectors' time; JDK 21+ G1 also reports concurrent cycles.
            if (!gc.getName().contains("Concurrent")) {
                gcCount += Math.max(0, gc.getCollectionCount());
                gcMillis += Math.max(0, gc.getCollectionTime());
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
                "pool", p);
    }
}
