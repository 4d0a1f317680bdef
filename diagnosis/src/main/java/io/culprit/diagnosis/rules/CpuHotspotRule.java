package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.ClientLibraries;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.Map;
import java.util.Optional;

/**
 * One method of the application's own code burning a large share of the CPU in plain computation:
 * the bug no specific rule knows (a backtracking regular expression, a nested loop over a growing
 * list, a hash or a parse repeated per item). Read from the CPU profile: each sample goes to the
 * deepest application frame on its stack ({@link Frames#isApplication}), but only when everything
 * below that frame is the JDK or libraries that compute (collections, regex, text, math); a sample
 * that goes through a framework or container (the application's filter around the whole request),
 * a dependency client (calls and pools are weighed by the call rules), or a cost another rule
 * names (exceptions, class and resource lookups, logging, serialization, bean creation) is left
 * to them. Keyed to no package of any application.
 */
public final class CpuHotspotRule implements Rule {
    /** A quarter of the JVM's CPU in one method's own computation: that method sets the capacity. */
    static final double SHARE_WARN = 0.25;
    static final double SHARE_CRITICAL = 0.5;
    /** Below this many samples a share is noise (a profile of an idle service). */
    static final long MIN_SAMPLES = 100;
    /**
     * Frames below the application's that hand work on rather than compute: their time is someone
     * else's finding. Sockets and file writes are; walking, stat-ing and reading files is not (it is
     * the request's own CPU, in the kernel: HotCallee's FILE_SYSTEM).
     */
    private static final String[] DISPATCH = {
        "org.apache.catalina.", "org.apache.coyote.", "org.apache.tomcat.", "org.eclipse.jetty.", "io.undertow.",
        "jakarta.servlet.", "javax.servlet.", "org.glassfish.", "org.jboss.", "io.grpc.", "io.vertx.", "io.micronaut.",
        "io.quarkus.", "java.lang.Thread.sleep", "java.util.concurrent.locks.", "java.net.", "sun.nio.ch.",
        "java.io.FileOutputStream", "java.io.RandomAccessFile", "java.nio.channels."
    };

    /** Frames that compile a regular expression. */
    private static final String[] REGEX_COMPILE = {"java.util.regex.Pattern.compile", "java.util.regex.Pattern.<init>"};
    /** From this share of the method's samples, compiling is named beside matching. */
    static final double REGEX_COMPILE_SHARE = 0.2;
    /** Comparisons of boxed numbers (natural order on a List<Double> or a Stream<Long>). */
    private static final String[] BOXED_COMPARE = {"java.lang.Double.compareTo", "java.lang.Long.compareTo",
        "java.lang.Integer.compareTo", "java.lang.Float.compareTo", "java.lang.Short.compareTo"};

    @Override public String id() { return "cpu-hotspot"; }
    @Override public String title() { return "One application method burns the CPU"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty()) return notAssessed("no cpu profile (profiles/cpu.collapsed)");
        CpuProfile p = profile.get();
        if (p.samples() < MIN_SAMPLES) {
            return finding(Severity.OK).evidence("profiles/cpu.collapsed").number(Long.toString(p.samples()), "profiles/cpu.collapsed")
                    .summary("only " + p.samples() + " CPU samples: too few to weigh one method's share.").build();
        }
        Map.Entry<String, Long> top = top(p.sumBy(CpuHotspotRule::computingMethod));
        double share = top == null ? 0 : (double) top.getValue() / p.samples();
        Finding.Builder b = finding(Severity.OK).evidence("profiles/cpu.collapsed");
        // Tagged only where printed: "no application method" prints no share.
        if (top != null) b.number(Fmt.pct(share), "profiles/cpu.collapsed");
        if (share < SHARE_WARN) {
            return b.summary(top == null ? "no application method computes on its own in the CPU profile."
                    : "the application method computing most on its own, " + top.getKey() + ", holds " + Fmt.pct(share)
                    + " of CPU samples.").build();
        }
        String method = top.getKey();
        CpuProfile mine = p.only(st -> method.equals(computingMethod(st)));
        long own = mine.samples();
        Map.Entry<String, Long> leaf = top(mine.sumBy(st -> Frames.stripLine(st[st.length - 1])));
        boolean self = leaf.getKey().equals(method) || method.equals(methodOf(leaf.getKey()));
        Numbers n = new Numbers();
        String leafShare = Fmt.pct((double) leaf.getValue() / own);
        // What it calls, and the kind of computation: the flame graph's first question, and the cure.
        Map.Entry<String, Long> callee = top(mine.sumBy(HotCallee::callee));
        boolean namedCallee = !self && callee != null && !callee.getKey().equals(leaf.getKey()) && callee.getValue() * 2 >= own;
        String detail = self ? "most of it in its own code"
                : namedCallee
                ? n.tag(Fmt.pct((double) callee.getValue() / own), "profiles/cpu.collapsed") + " of it in its call to "
                        + callee.getKey() + ", the hottest leaf " + leaf.getKey() + " (" + n.tag(leafShare, "profiles/cpu.collapsed") + ")"
                : "the hottest leaf is " + leaf.getKey() + " (" + n.tag(leafShare, "profiles/cpu.collapsed") + " of it)";
        Map.Entry<String, Long> kindTop = top(mine.sumBy(st -> {
            HotCallee.Kind k = HotCallee.kind(st);
            return k == null ? null : k.name();
        }));
        // A kind names the cure only when it is most of the method's time.
        HotCallee.Kind kind = kindTop != null && kindTop.getValue() * 2 >= own ? HotCallee.Kind.valueOf(kindTop.getKey()) : null;
        // A deep recursion is only called a stack overflow when the JVM's frames show one thrown.
        if (kind == HotCallee.Kind.STACK_OVERFLOW && mine.only(HotCallee::throwsStackOverflow).samples() == 0) kind = null;
        boolean sameSamples = kind != null && namedCallee && callee.getValue().equals(kindTop.getValue());
        if (kind != null) detail += sameSamples ? "; that is " + kind.what
                : "; " + n.tag(Fmt.pct((double) kindTop.getValue() / own), "profiles/cpu.collapsed") + " of it is " + kind.what;
        // The library's own lock, taken inside the kind of work named (the JDK's XSLTC compiles one
        // stylesheet at a time): the requests queue on it because they all do that work.
        String kindLock = kind == null ? null : LockContentionRule.topLockTakenIn(ev, kind::matches);
        if (kindLock != null) detail += "; the lock requests contend on most (" + kindLock + ") is taken inside it, so they also queue for it";
        boolean mapLock = mine.only(HotCallee::underMapLock).samples() * 2 >= own;
        if (mapLock) detail += "; it runs inside ConcurrentHashMap.compute or merge, holding the lock of the key's bin, so"
                + " requests on one key take turns";
        // A parallel stream per request: its cure is the stream's, whatever the lambdas compute.
        boolean parallel = kind == null && mine.only(HotCallee::parallelStream).samples() * 2 >= own;
        if (parallel) detail += "; it runs as a parallel stream, its parts on ForkJoinPool.commonPool beside the other requests";
        // Within regular expressions, the patterns compiled again on each call (String.matches,
        // replaceAll, split): a service outside the lab spent 38 % of its normalizer there, 41 % matching.
        double compiling = kind == HotCallee.Kind.REGEX
                ? (double) mine.only(st -> Frames.anyStartsWith(st, REGEX_COMPILE)).samples() / own : 0;
        boolean recompiles = compiling >= REGEX_COMPILE_SHARE;
        if (recompiles) detail += "; " + n.tag(Fmt.pct(compiling), "profiles/cpu.collapsed") + " of it compiles the patterns"
                + " again (Pattern.compile)";
        // Numbers sorted as objects (a List<Double>, a Stream<Double>): each comparison follows two references.
        boolean boxedSort = kind == HotCallee.Kind.SORT && mine.only(st -> Frames.anyStartsWith(st, BOXED_COMPARE)).samples() > 0;
        if (boxedSort) detail += ", of boxed numbers";
        String fix = recompiles ? "Compile each pattern once into a static final Pattern and use it (pattern.matcher(s).matches(),"
                + " pattern.matcher(s).replaceAll(r), pattern.split(s)): String.matches, replaceAll, replaceFirst and split"
                + " compile their regular expression again on every call (split only skips it for a single plain"
                + " character); for a fixed string use String.replace or indexOf instead. If matching still costs"
                + " then, make the patterns linear (no nested unbounded quantifiers) and bound the input they run on."
                : boxedSort ? "Sort the numbers as a primitive array (Arrays.sort(double[]), long[], int[]): sorting Double or"
                + " Long objects from a List or a boxed stream (stream().sorted(), boxed()) allocates an object per value and"
                + " follows a reference at every comparison. " + kind.fix
                : kind != null ? kind.fix
                : parallel ? "Use a sequential stream on a request path: the common pool is shared by every request and has"
                + " one thread fewer than the CPUs, so under load the parts only compete with other requests for the same"
                + " cores and each split adds hand-offs and joins. Parallel streams pay off for large CPU-bound work on an"
                + " otherwise idle machine; if the work must be split, give it a bounded pool of its own."
                : "Read the flame graph under " + method + ": replace quadratic lookups by a HashSet or HashMap, make"
                + " regular expressions linear (possessive or atomic groups, no nested quantifiers) and compile them"
                + " once, compute what does not change once and cache it, or bound the input it accepts.";
        if (mapLock) fix += " Do the work outside the map's compute (compute the value first, then put or replace it), so"
                + " the bin lock covers only the update.";
        if (mapLock || kindLock != null) b.explains("lock-contention");
        // Text rendered for a log call its level drops: the argument is built before the logger checks the level.
        DroppedLogs dropped = namedCallee && rendersText(callee.getKey()) ? DroppedLogs.near(ev, method).orElse(null) : null;
        if (dropped != null) {
            b.evidence("tables/discarded-logs").number(Fmt.num(dropped.perRequest), dropped.ref);
            detail += "; and " + dropped.clause() + ": the text is built for a log message that is never written";
            fix = "Build the message only when it is logged: guard the call with " + dropped.guard() + ", or pass a lazy"
                    + " argument (SLF4J 2's logger.atDebug().addArgument(() -> ...), log4j2's Supplier): a placeholder defers"
                    + " the formatting, not the evaluation of the arguments, so " + callee.getKey() + " runs on every call.";
        } else if (namedCallee && kind == null && rendersText(callee.getKey())) {
            // The agent counts dropped log calls only in their unparameterized forms: an eager argument to
            // debug("{}", x.format()) is not seen dropped, so both readings are given.
            detail += ": a library's data rendered as text on every call";
            fix = "Render the text only when it is used: if it is a log message's argument (debug(\"...{}\", "
                    + Frames.shortName(callee.getKey()) + "())), guard the log call with logger.isDebugEnabled() or pass a lazy"
                    + " argument (SLF4J 2's fluent addArgument(() -> ...), log4j2's Supplier), since a placeholder defers the"
                    + " formatting, not the argument's evaluation; if it is part of the response, render it once per change of"
                    + " the data and cache the text, or write it to the response as it is produced.";
        }
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).culprit(method)
                .summary(method + " computes in " + Fmt.pct(share) + " of all CPU samples, with nothing but the JDK and"
                        + " computing libraries below it; " + detail + ".")
                .numbers(n.refs())
                .explanation(kind != null && kind.why() != null ? kind.why()
                        : "No dependency or framework is involved: the request's time is this method's own"
                        + " work, and it grows with its input (a regular expression that backtracks, a lookup in a list"
                        + " inside a loop, the same parse or hash per item). Every request that reaches it pays, and under"
                        + " load the cores it holds are what sets the service's capacity.")
                .fix(fix)
                .confirm(ev.confirm("trace " + Frames.classAndMethod(method) + " -n 3"))
                .explains("cpu-saturation").explains("tail-latency").explains("thread-oversubscription")
                .build();
    }

    /**
     * The deepest application frame of a stack (root first) when everything below it computes,
     * as {@code class.method} (a lambda named by its enclosing method); null otherwise.
     */
    static String computingMethod(String[] stack) {
        int app = HotCallee.deepestApplication(stack);
        if (app < 0) return null;
        // A primitive's bytes written straight onto a file, or a flush after each small write: the system call per value
        // or per flush is the method's own cost.
        boolean smallWrites = HotCallee.smallUnbufferedWrite(stack, app) || HotCallee.flushedWrite(stack, app);
        for (int i = app + 1; i < stack.length; i++) if (!smallWrites && !computes(stack[i])) return null;
        for (String f : stack) if (namedElsewhere(f)) return null;
        return methodOf(stack[app]);
    }

    /**
     * Spring packages that compute where they are called, unlike the rest of Spring, which
     * ClientLibraries counts with the data-access and web plumbing: password hashing, SpEL, its
     * string and path utilities.
     */
    private static final String[] SPRING_COMPUTE = {
        "org.springframework.security.crypto.", "org.springframework.expression.", "org.springframework.util."
    };

    /** A frame below the application's that is plain computation. */
    private static boolean computes(String frame) {
        boolean springCompute = false;
        for (String p : SPRING_COMPUTE) springCompute |= frame.startsWith(p);
        if (!springCompute && ClientLibraries.isClient(frame) && !rendersText(frame)) return false;
        for (String p : DISPATCH) if (frame.startsWith(p)) return false;
        return true;
    }

    /**
     * A data-access library's object rendered as text (jOOQ's {@code Result.format()}, {@code formatCSV},
     * {@code formatJSON}, a record's {@code toString}): computation on data already fetched, not access. A
     * blind service (session 46) rendered a cached 330-row jOOQ result as CSV for a DEBUG log argument on every
     * request, 68 % of its CPU, and read "no root cause found": jOOQ counted as database plumbing.
     */
    static boolean rendersText(String frame) {
        String m = Frames.stripLine(frame);
        m = m.substring(m.lastIndexOf('.') + 1);
        return m.startsWith("format") || m.equals("toString");
    }

    /** A cost with a rule of its own, wherever it sits on the stack. */
    private static boolean namedElsewhere(String frame) {
        return Frames.isLookup(frame) || Frames.isDefinition(frame) || frame.startsWith("java.lang.Throwable.") || frame.contains("Exception.<init>")
                || frame.contains("Error.<init>") || SerializationCpuRule.isSerialization(frame)
                || LoggingPressureRule.isLogging(frame) || PrototypeBeansRule.isCreation(frame);
    }

    /** The largest entry, null for none. */
    static <K> Map.Entry<K, Long> top(Map<K, Long> sums) {
        return sums.entrySet().stream().max(Map.Entry.comparingByValue()).orElse(null);
    }

    /** {@code a.B.m:12} → {@code a.B.m}; {@code a.B.lambda$m$3} → {@code a.B.m}. */
    static String methodOf(String frame) {
        String f = Frames.stripLine(frame);
        int l = f.indexOf("lambda$");
        if (l > 0) {
            int end = f.indexOf('$', l + "lambda$".length());
            if (end > 0) f = f.substring(0, l) + f.substring(l + "lambda$".length(), end);
        }
        return f;
    }
}
