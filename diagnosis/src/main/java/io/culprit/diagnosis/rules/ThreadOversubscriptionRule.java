package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * More threads than the machine can run, or a container pool pinned at its maximum while the CPU
 * is busy: adding threads only adds context switches (CASES.md #4: cutting a pool from 100 to 50
 * threads raised throughput 50 %). Little's Law gives the pool size the load actually needs.
 */
public final class ThreadOversubscriptionRule implements Rule {
    /** Four runnable threads per core: each gets a quarter of a core and latency stretches 4×. */
    static final double RUNNABLE_PER_CPU_WARN = 4;
    static final double RUNNABLE_PER_CPU_CRITICAL = 8;
    /** A pool at 95 % of its maximum is full for practical purposes. */
    static final double POOL_FULL = 0.95;
    /** Full pool plus a busy CPU means the threads compete for cores, not for I/O. */
    static final double BUSY_CPU = 0.75;
    /** A thread using 5 % of a core on average is doing request work, not idling. */
    static final double BUSY_THREAD_CORE_SHARE = 0.05;

    @Override public String id() { return "thread-oversubscription"; }
    @Override public String title() { return "Thread pools oversubscribe the CPUs"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> runnable = ev.stats("threads", "runnable");
        Optional<ColumnStats> busy = ev.stats("pools", "containerBusy");
        Optional<ColumnStats> max = ev.stats("pools", "containerMax");
        if (runnable.isEmpty() && (busy.isEmpty() || max.isEmpty())) {
            return fromThreadCpu(ev).orElseGet(() ->
                    notAssessed("needs series threads#runnable, pools#containerBusy and containerMax, or table thread-cpu"));
        }
        double cpus = ev.cpus();
        double perCpu = runnable.isPresent() && cpus > 0 ? runnable.get().mean() / cpus : Double.NaN;
        double cpu = ev.stats("cpu", "machineTotal").map(ColumnStats::mean).orElse(Double.NaN);
        double fill = busy.isPresent() && max.isPresent() ? busy.get().quantile(0.9) / max.get().max() : Double.NaN;
        // A closed-model load with as many connections as the pool has threads keeps the pool full by
        // itself, whatever the threads do: the pool's fill then says nothing about oversubscription.
        double loadConnections = LoadJson.closedConnections(ev.caseFile().dir());
        boolean loadFills = max.isPresent() && loadConnections >= max.get().max();
        boolean poolFullAndBusy = fill >= POOL_FULL && cpu >= BUSY_CPU && !loadFills;
        Numbers n = new Numbers();
        StringBuilder s = new StringBuilder();
        if (Double.isFinite(perCpu)) s.append(n.tag(Fmt.num(runnable.get().mean()), "series/threads#runnable")).append(" runnable threads on ")
                .append(Fmt.num(cpus)).append(" CPU(s) (").append(n.tag(Fmt.num(perCpu), "series/threads#runnable")).append(" per CPU)");
        if (Double.isFinite(fill)) s.append(s.length() > 0 ? "; " : "").append("container pool ")
                .append(n.tag(Fmt.num(busy.get().quantile(0.9)), "series/pools#containerBusy")).append(" of ")
                .append(n.tag(Fmt.num(max.get().max()), "series/pools#containerMax")).append(" busy");
        if (Double.isFinite(cpu)) s.append(" at ").append(n.tag(Fmt.pct(cpu), "series/cpu#machineTotal")).append(" CPU");
        s.append(littlesLaw(ev, max, n));
        if (fill >= POOL_FULL && loadFills) s.append("; the closed-model load keeps ").append(n.tag(Fmt.num(loadConnections), "load.json"))
                .append(" requests in flight, which fills the pool by itself");
        Severity sev = perCpu >= RUNNABLE_PER_CPU_CRITICAL ? Severity.CRITICAL
                : perCpu >= RUNNABLE_PER_CPU_WARN || poolFullAndBusy ? Severity.WARN : Severity.OK;
        Finding.Builder b = finding(sev).evidence("series/threads#runnable").evidence("series/pools#containerBusy").numbers(n.refs());
        if (sev == Severity.OK) return b.summary(s + ".").build();
        return b.score(Double.isFinite(perCpu) ? Math.min(0.5, perCpu / 20) : 0.2).culprit("thread pool sizing")
                .summary(s + ".")
                .explanation("Threads beyond what the cores and the downstream resources can serve only queue and"
                        + " context-switch; each runs at a fraction of a core, so every request takes longer.")
                .fix("Size pools by Little's Law (rps × time per request, with headroom) rather than large defaults;"
                        + " bound concurrency at the entry (semaphore, bulkhead) instead of deep thread pools.")
                .confirm(ev.confirm("thread -n 10 -i 1000") + " (many threads each at a few % CPU)")
                .build();
    }

    private static String littlesLaw(Evidence ev, Optional<ColumnStats> max, Numbers n) {
        double rps = ev.stats("requests", "rps").map(ColumnStats::mean).orElse(Double.NaN);
        double latency = ev.meanLatencyMs();
        if (!(rps > 0) || !(latency > 0)) return "";
        double need = rps * latency / 1000;
        String latencyRef = ev.has("requests", "meanMs") ? "series/requests#meanMs" : "series/requests#p50Ms";
        return "; Little's Law: " + n.tag(Fmt.num(rps), "series/requests#rps") + " rps × " + n.tag(Fmt.ms(latency), latencyRef) + " = "
                + n.tag(Fmt.num(need), latencyRef) + " requests in flight"
                + max.map(m -> " for " + n.tag(Fmt.num(m.max()), "series/pools#containerMax") + " threads").orElse("");
    }

    // JFR's per-thread CPU (share of the machine): many threads each at a small slice of a core,
    // none hot, on a busy CPU is the time-slicing signature (CASES.md #5's "many threads at 10 %").
    private Optional<Finding> fromThreadCpu(Evidence ev) {
        Optional<Table> tc = ev.rows("thread-cpu");
        double cpus = ev.cpus();
        if (tc.isEmpty() || !(cpus > 0)) return Optional.empty();
        Table t = tc.get();
        int busyThreads = 0;
        double hottest = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double core = (finite(t.number(i, "avgUser")) + finite(t.number(i, "avgSystem"))) * cpus;
            if (core >= BUSY_THREAD_CORE_SHARE) busyThreads++;
            hottest = Math.max(hottest, core);
        }
        double cpu = ev.stats("cpu", "machineTotal").map(ColumnStats::mean).orElse(Double.NaN);
        // Request threads beyond the requests in flight are not runnable at once: a pool rotating a few
        // connections over many workers shows many threads "busy" on average without oversubscribing.
        double inFlight = ev.stats("requests", "inFlight").map(ColumnStats::mean).orElse(Double.NaN);
        boolean few = Double.isFinite(inFlight) && inFlight < RUNNABLE_PER_CPU_WARN * cpus;
        boolean many = busyThreads >= RUNNABLE_PER_CPU_WARN * cpus && cpu >= BUSY_CPU && !few;
        Numbers n = new Numbers();
        String s = n.tag(String.valueOf(busyThreads), "tables/thread-cpu") + " threads busy (≥ " + Fmt.pct(BUSY_THREAD_CORE_SHARE)
                + " of a core each) on " + Fmt.num(cpus) + " CPU(s), the hottest at " + n.tag(Fmt.pct(hottest), "tables/thread-cpu")
                + " of a core" + (Double.isFinite(cpu) ? ", machine CPU " + n.tag(Fmt.pct(cpu), "series/cpu#machineTotal") : "");
        if (few) s += "; only " + n.tag(Fmt.num(inFlight), "series/requests#inFlight") + " requests in flight";
        Finding.Builder b = finding(many ? Severity.WARN : Severity.OK).evidence("tables/thread-cpu").numbers(n.refs());
        if (!many) return Optional.of(b.summary(s + ".").build());
        return Optional.of(b.score(0.2).culprit("thread pool sizing").summary(s + ": threads time-slice the cores.")
                .explanation("Many threads each using a slice of a core, none hot, on a busy machine: they time-slice"
                        + " the CPUs and every request takes longer than its own work.")
                .fix("Size pools by Little's Law (rps × time per request, with headroom) rather than large defaults.")
                .confirm(ev.confirm("thread -n 10 -i 1000") + " (many threads each at a few % CPU)")
                .build());
    }
}
