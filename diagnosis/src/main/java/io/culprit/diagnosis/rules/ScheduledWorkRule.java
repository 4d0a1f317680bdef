package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.Map;

/**
 * Work a scheduler runs beside the requests (a Spring {@code @Scheduled} method, a
 * ScheduledExecutorService task, a Quartz job, a java.util.Timer) taking the cores the requests
 * need: read from the CPU profile, by the scheduler's frame at the root of a stack that no request
 * entry is on, and the task is the first application frame below it. A parallel stream the task
 * runs puts its parts on the common pool, whose stacks name no task: they are counted with the
 * task when the task runs parallel streams and no request does. A service outside the lab whose
 * report was rebuilt every 3 s as a parallel stream lost 27 % of its throughput and read "no root
 * cause found": cpu-hotspot saw 10 % of the samples in the task's own frame and none in the parts.
 */
public final class ScheduledWorkRule implements Rule {
    static final double SHARE_WARN = 0.15;
    static final double SHARE_CRITICAL = 0.3;

    private static final String[] SCHEDULERS = {
        "org.springframework.scheduling.support.ScheduledMethodRunnable.run",
        "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask.run",
        "java.util.TimerThread.mainLoop", "org.quartz.core.JobRunShell.run",
        "io.micronaut.scheduling.processor.ScheduledMethodProcessor", "io.quarkus.scheduler."
    };
    /** A server's entry into a request: work under it is the requests' own. */
    private static final String[] REQUESTS = {
        "jakarta.servlet.http.HttpServlet.service", "javax.servlet.http.HttpServlet.service",
        "org.apache.catalina.connector.CoyoteAdapter.service", "org.eclipse.jetty.server.HttpChannel.handle",
        "io.undertow.server.Connectors.executeRootHandler", "org.springframework.web.reactive.DispatcherHandler.handle",
        "reactor.netty.http.server.HttpServerOperations.onInboundNext", "io.grpc.internal.ServerImpl$"
    };
    private static final String[] FORK_JOIN_WORKER = {"java.util.concurrent.ForkJoinWorkerThread.run"};

    @Override public String id() { return "scheduled-work"; }
    @Override public String title() { return "Scheduled background work takes the requests' CPU"; }

    @Override
    public Finding evaluate(Evidence ev) {
        CpuProfile p = ProfileGate.enough(ev);
        if (p == null) return notAssessed(ProfileGate.missing(ev));
        CpuProfile scheduled = p.only(st -> Frames.anyStartsWith(st, SCHEDULERS) && !Frames.anyStartsWith(st, REQUESTS));
        Map.Entry<String, Long> task = CpuHotspotRule.top(scheduled.sumBy(ScheduledWorkRule::task));
        Finding.Builder b = finding(Severity.OK).evidence("profiles/cpu.collapsed");
        if (task == null) return b.summary("no scheduled task ran on the CPU in the profile.").build();
        CpuProfile mine = scheduled.only(st -> task.getKey().equals(task(st)));
        // The parts of the task's parallel streams run on the common pool, under no frame of the task.
        boolean parallel = mine.only(HotCallee::parallelStream).samples() * 2 >= mine.samples()
                && p.only(st -> Frames.anyStartsWith(st, REQUESTS) && HotCallee.parallelStream(st)).samples() == 0;
        long parts = parallel ? p.only(st -> Frames.anyStartsWith(st, FORK_JOIN_WORKER) && HotCallee.parallelStream(st)
                && !Frames.anyStartsWith(st, SCHEDULERS) && !Frames.anyStartsWith(st, REQUESTS)).samples() : 0;
        double share = (double) (mine.samples() + parts) / p.samples();
        Numbers n = new Numbers();
        String ref = "profiles/cpu.collapsed";
        double busy = CpuSaturationRule.busyP90(ev);
        String what = "the scheduled task " + Frames.stripLine(task.getKey()) + " ran on " + n.tag(Fmt.pct(share), ref)
                + " of the CPU samples" + (parallel && parts > 0 ? " (" + n.tag(Fmt.pct((double) parts / p.samples()), ref)
                + " in its parallel stream's parts on the common pool)" : "")
                + (Double.isFinite(busy) ? ", the machine's CPU " + n.tag(Fmt.pct(busy), "series/cpu#machineTotal") + " busy at p90" : "");
        if (share < SHARE_WARN) return b.summary(what + ": too small a share to take the requests' cores.").numbers(n.refs()).build();
        boolean saturated = busy >= CpuSaturationRule.WARN;
        Severity sev = !saturated ? Severity.INFO : share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        return b.severity(sev).score(share).culprit(task.getKey())
                .summary(what + (saturated ? ": it runs on the cores the requests wait for." : ": the cores had room for it."))
                .numbers(n.refs())
                .explanation("A scheduler runs this work beside the requests, on the same cores: whenever it runs, the"
                        + " requests wait for a CPU, so throughput falls and latency rises in the windows it runs in, and"
                        + " nothing on the requests' own path shows why."
                        + (parallel ? " Its parallel stream splits the work over ForkJoinPool.commonPool, as many threads as"
                        + " cores less one: while it runs it takes every core it can." : ""))
                .fix("Make the background work cheaper or move it out of the requests' way: compute incrementally (update"
                        + " the result as its inputs change instead of rebuilding it whole), run it less often or when traffic"
                        + " is low, bound it to one thread (no parallel stream, a single-threaded executor), or run it in"
                        + " another process or instance than the one serving requests.")
                .confirm(ev.confirm("profiler start --event cpu") + " then the flame graph under " + Frames.shortName(task.getKey()))
                .explains("cpu-saturation").explains("tail-latency").explains("cpu-hotspot").explains("thread-oversubscription")
                .build();
    }

    /** The first application frame below the scheduler's frame; null when there is none. */
    static String task(String[] st) {
        return Frames.firstBelow(st, f -> Frames.startsWithAny(f, SCHEDULERS), Frames::isApplication);
    }
}
