package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import io.culprit.model.Targets;
import java.util.Optional;

/**
 * A process started on the request path: a handler that shells out (for the host name, an image
 * conversion, a script) per request. Read from the CPU profile, where the request threads spend
 * time in {@code ProcessBuilder.start}, and from {@code request-waits}, where the same method
 * waits reading a pipe (JFR's file reads without a path: the child's output). A service outside
 * the lab that ran {@code hostname} per request got request-waits' "waited on file I/O (null)".
 */
public final class ProcessSpawnRule implements Rule {
    /** A tenth of the CPU or of the request's time in starting and reading processes is worth a fix. */
    static final double SHARE_WARN = 0.1;
    static final double SHARE_CRITICAL = 0.3;
    private static final String[] SPAWN = {"java.lang.ProcessBuilder.start", "java.lang.Runtime.exec"};

    @Override public String id() { return "process-spawn"; }
    @Override public String title() { return "Processes started on the request path"; }

    @Override
    public Finding evaluate(Evidence ev) {
        if (ev.cpuProfileIfAny().isEmpty()) return notAssessed("no cpu profile (profiles/cpu.collapsed)");
        double cpuShare = ev.cpuShare(ProcessSpawnRule::spawns);
        Finding.Builder b = finding(Severity.OK).evidence(ev.cpuRef());
        if (!(cpuShare > 0)) return b.summary("no process started in the CPU profile.").build();
        String caller = ev.cpuCaller(ProcessSpawnRule::spawns);
        Numbers n = new Numbers();
        // The profile says who starts them, not that a request waits: the pipe reads below say that.
        String cpu = (caller == null ? "processes start" : caller + " starts processes") + ": "
                + n.tag(Fmt.pct(cpuShare), ev.cpuRef()) + " of CPU samples are in ProcessBuilder.start";
        // The same method reading a pipe: the child's output, waited for on the request thread.
        double waitMs = 0, waits = 0;
        Optional<Table> rw = ev.rows("request-waits");
        if (caller != null && rw.isPresent()) {
            Table t = rw.get();
            String method = Frames.stripLine(caller);
            for (int i = 0; i < t.rows().size(); i++) {
                if (Targets.PIPE.equals(t.text(i, "target")) && method.equals(Frames.stripLine(Evidence.text(t, i, "site")))) {
                    waitMs += t.number(i, "waitMs");
                    waits += t.number(i, "events");
                }
            }
        }
        double requests = ev.requestCount(), meanMs = ev.meanLatencyMs();
        double waitShare = waitMs > 0 && requests > 0 && meanMs > 0 ? Math.min(1, waitMs / requests / meanMs) : 0;
        String waited = waitShare > 0 ? "; its requests wait " + n.tag(Fmt.ms(waitMs / requests), "tables/request-waits") + " each ("
                + n.tag(Fmt.pct(waitShare), "tables/request-waits") + " of the mean request's " + Fmt.ms(meanMs) + ", "
                + n.tag(Fmt.num(waits), "tables/request-waits") + " reads) for the child's output on a pipe" : "";
        double score = Math.max(cpuShare, waitShare);
        if (score < SHARE_WARN) return b.summary(cpu + waited + ": too small a share to be the cause.").numbers(n.refs()).build();
        if (waitShare > 0) b.evidence("tables/request-waits").explains("request-waits");
        return b.severity(score >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(score)
                .culprit(caller != null ? caller : "processes started per request")
                .summary(cpu + waited + ".")
                .numbers(n.refs())
                .explanation("Starting a process costs the JVM a spawn of its helper and an exec of the command, then the"
                        + " child's own start-up: milliseconds, all of it on the request thread, which then waits for the"
                        + " child's output and exit. Under load the children compete with the service for the same cores.")
                .fix("Do not start a process per request: get the value through a Java API (the host name from"
                        + " InetAddress.getLocalHost().getHostName(), files through java.nio.file, a Java library for the"
                        + " tool's job), compute it once at start-up and keep it, or keep one long-lived helper process and"
                        + " talk to it over its pipes. Where a process per request cannot be avoided, bound how many run at"
                        + " once.")
                .confirm(caller == null ? null : ev.confirm("trace " + Frames.classAndMethod(caller) + " -n 3"))
                .explains("cpu-saturation").explains("tail-latency")
                .build();
    }

    private static boolean spawns(String frame) {
        return Frames.startsWithAny(frame, SPAWN);
    }
}
