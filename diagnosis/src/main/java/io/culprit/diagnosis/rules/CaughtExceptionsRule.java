package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Optional;

/**
 * Exceptions thrown and caught on every request: each one fills a stack trace (the costly part)
 * only to be swallowed, invisible in logs (CASES.md #3: 8 ClassNotFoundExceptions per call; #5:
 * 30–40 binding exceptions per request, ~10 % of capacity).
 */
public final class CaughtExceptionsRule implements Rule {
    /** A healthy request path throws nothing; one per request is paid on every call. */
    static final double PER_REQUEST_WARN = 1;
    /** Ten per request: stack filling becomes a CPU consumer of its own. */
    static final double PER_REQUEST_CRITICAL = 10;
    /** Without request counts: 100 per second is far beyond occasional error handling. */
    static final double PER_SECOND_WARN = 100;
    /**
     * Cost of one throw with fillInStackTrace at framework stack depths (100–200 frames): 10–30 µs
     * in JMH measurements of Throwable construction; 15 µs is used to estimate the CPU share.
     */
    static final double COST_PER_THROW_US = 15;
    /**
     * Below ten per request, a problem only when it costs: a twentieth of the CPU. One expected
     * exception per request that costs 0.2 % is a code smell, not why a service is slow; three
     * costing 3 % (log-storm's fixed twin: Spring's wrapper around an expected miss) were named
     * that service's root cause at 1 %, and are now noted as INFO.
     */
    static final double MIN_COST_SHARE = 0.05;

    /**
     * The frame that makes an exception only to read the stack: Thread.getStackTrace on the current
     * thread. A service outside the lab named each audit line's caller so, five per request, and was
     * told to "avoid the exceptional path".
     */
    static final String STACK_READ = "java.lang.Thread.getStackTrace";

    /**
     * A Throwable made to keep a stack, never thrown: Netty's leak detector builds one for each
     * buffer it tracks (1 in 128 at its default level, every buffer and every access at
     * {@code paranoid}). JFR counts each as an exception. A reactive service outside the lab
     * (session 40) made hundreds a second at the default level, and culprit named them its root
     * cause over the regex that was. They are not counted as exceptions; the detector is named
     * only when its own frames hold {@link #MIN_COST_SHARE} of the CPU.
     */
    static final String NETTY_LEAK_RECORD = "io.netty.util.ResourceLeakDetector$TraceRecord";
    static final String NETTY_LEAK_DETECTOR = "io.netty.util.ResourceLeakDetector";

    @Override public String id() { return "caught-exceptions"; }
    @Override public String title() { return "Exceptions thrown and caught on the hot path"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("exceptions");
        if (table.isEmpty()) return notAssessed("no table exceptions");
        Table t = table.get();
        int top = -1;
        double perRequest = 0, perSecond = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            if (Boolean.FALSE.equals(t.rows().get(i).get("caught"))) continue; // escaped: errors, not hidden cost
            if (NETTY_LEAK_RECORD.equals(t.text(i, "type"))) continue;  // a record, not a throw
            double pr = ev.perRequest(t, i), ps = ev.perSecond(t, i);
            if (Double.isFinite(pr)) perRequest += pr;
            if (Double.isFinite(ps)) perSecond += ps;
            if (top < 0 || t.number(i, "count") > t.number(top, "count")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/exceptions");
        Numbers n = new Numbers();
        // Measured where the case has a cpu profile (stack filling on the stack), else estimated per throw below.
        boolean profiled = ev.hasCpuProfile();
        double filling = profiled ? ev.cpuShare(f -> f.contains("Throwable.fillInStackTrace")) : Double.NaN;
        double leakShare = profiled ? ev.cpuShare(f -> f.startsWith(NETTY_LEAK_DETECTOR)) : Double.NaN;
        if (leakShare >= MIN_COST_SHARE && (top < 0 || leakShare > filling - leakShare)) {
            return leakDetector(ev, leakShare);
        }
        if (top < 0) {
            return b.summary("no caught exceptions recorded (" + n.tag(String.valueOf(t.rows().size()), "tables/exceptions")
                    + " escaped types).").numbers(n.refs()).build();
        }
        boolean perReq = ev.requestCount() > 0 || Double.isFinite(t.number(top, "perRequest"));
        double cpus = ev.cpus() > 0 ? ev.cpus() : 1;
        double cpuShare = profiled ? filling : perSecond * COST_PER_THROW_US / 1e6 / cpus;
        // Many per request are a problem when they cost; a profile that shows next to no stack filling says they do not:
        // Spring's reactive transaction lookup throws a stackless NoTransactionInContextException twice per statement.
        boolean cheap = profiled && cpuShare < MIN_COST_SHARE;
        Severity sev = perReq
                ? perRequest >= PER_REQUEST_CRITICAL && !cheap ? Severity.CRITICAL
                        : perRequest >= PER_REQUEST_WARN ? (cpuShare >= MIN_COST_SHARE ? Severity.WARN : Severity.INFO) : Severity.OK
                : perSecond >= PER_SECOND_WARN ? Severity.WARN : Severity.OK;
        String type = t.text(top, "type");
        String site = t.text(top, "site");
        String rate = (perReq ? n.tag(Fmt.num(perRequest), "tables/exceptions") + " per request, " : "")
                + n.tag(Fmt.num(perSecond), "tables/exceptions") + "/s";
        if (sev == Severity.OK) return b.summary("caught exceptions: " + rate + ", top " + type + ".").numbers(n.refs()).build();
        Object caught = t.rows().get(top).get("caught");
        String fills = profiled ? " (" + n.tag(Fmt.pct(cpuShare), ev.cpuRef()) + " of CPU samples filling stack traces)"
                : " (≈" + n.tag(Fmt.pct(cpuShare), "tables/exceptions") + " of " + Fmt.num(cpus) + " CPU(s) filling stack traces)";
        List<String> stack = Evidence.stack(t, top, "stack");
        // Thrown inside a library (a parser probing ahead), the fix is where the service calls it.
        String from = Frames.applicationCaller(site, stack);
        String at = site + (from == null ? "" : " (called from " + from + ")");
        if (!stack.isEmpty() && stack.get(0).startsWith(STACK_READ)) {
            b.severity(sev).score(cpuShare).culprit(site).evidence("tables/exceptions#" + top)
                    .summary("Thread.getStackTrace() built " + n.tag(Fmt.num(ev.perRequest(t, top)), "tables/exceptions#" + top) + " "
                            + type + " per request at " + at + fills + ": nothing is thrown, but each call walks and copies"
                            + " the whole stack to read it (" + rate + " in all).")
                    .numbers(n.refs())
                    .explanation("Thread.currentThread().getStackTrace() creates an exception and fills its trace: every frame of"
                            + " the stack turned into a StackTraceElement, on every call, to read one or two of them (most often the"
                            + " caller's name). JFR counts each as an exception, though none is thrown.")
                    .fix("Pass the caller's name in, or read only the frames needed with StackWalker"
                            + " (StackWalker.getInstance().walk(s -> s.skip(1).findFirst()) stops at the frame it wants and copies"
                            + " nothing else); if it must stay, call it once per request, not per line or per item.")
                    .confirm(ev.confirm("stack java.lang.Thread getStackTrace -n 5") + " (who reads the stack)");
            if (cpuShare >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation").explains("thread-oversubscription");
            return b.build();
        }
        b.severity(sev).score(cpuShare).culprit(site).evidence("tables/exceptions#" + top)
                .summary("exceptions thrown and " + (caught == null ? "probably " : "") + "caught: " + rate + "; top "
                        + n.tag(Fmt.num(ev.perRequest(t, top)), "tables/exceptions#" + top) + " " + type + " per request at " + at
                        + fills + ".")
                .numbers(n.refs())
                .explanation("Each throw walks the stack to fill its trace; caught and ignored, it leaves no log line,"
                        + " only CPU burnt on every request. The throw site and its callers show who asks for it.")
                .fix("Avoid the exceptional path: check before calling (class presence, property existence),"
                        + " cache the negative answer, or configure the framework not to probe on every call.")
                .confirm(ev.confirm("exceptions -n 5") + " or " + Evidence.quoted("watch " + watchTarget(site) + " '{throwExp}' -e"));
        if (cpuShare >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation").explains("thread-oversubscription");
        return b.build();
    }

    private Finding leakDetector(Evidence ev, double share) {
        Numbers n = new Numbers();
        return finding(share >= ConstructionRule.COST_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share)
                .culprit(NETTY_LEAK_DETECTOR).evidence(ev.cpuRef())
                .summary(n.tag(Fmt.pct(share), ev.cpuRef()) + " of CPU samples in Netty's leak detector, which fills a stack trace for"
                        + " each buffer it tracks (ResourceLeakDetector$TraceRecord, made, never thrown): it runs at a level above"
                        + " the default, which tracks 1 buffer in 128.")
                .numbers(n.refs())
                .explanation("At the advanced and paranoid levels Netty's leak detector records where each tracked buffer was"
                        + " made and touched, a stack trace each time; paranoid tracks every buffer. Meant for tests, in a"
                        + " service under load it costs a stack walk per buffer.")
                .fix("Run with the default level (-Dio.netty.leakDetection.level=simple) or disabled in production; keep"
                        + " paranoid for tests.")
                .confirm(ev.confirm("sysprop io.netty.leakDetection.level"))
                .explains("tail-latency").explains("cpu-hotspot")
                .build();
    }

    private static String watchTarget(String site) {
        String target = Frames.classAndMethod(site);
        return target == null ? "*" : target;
    }
}
