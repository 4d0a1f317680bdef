package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Hot code the JIT does not compile ({@code jit}: JFR's frame types on the execution samples'
 * top frames). After the warm-up a service runs compiled; code still interpreted under load is code
 * the JIT will not compile. Three causes, told apart by the evidence: the code cache filled, which
 * stops the compiler for the whole JVM ({@code fullCount}), or is nearly full while the whole
 * service runs interpreted (JDK 17's sweeper flushes compiled code to keep it from filling: a
 * service outside the lab with an 8 MB cache ran 70 % interpreted and read "the JIT was still
 * compiling"); the JIT is off by flag ({@code -Xint});
 * or one method stays interpreted while the rest is compiled, which is HotSpot declining a method
 * over 8,000 bytes of bytecode (or one it gave up on). A service outside the lab that scored order
 * lines with a generated 20 KB decision-table method read cpu-hotspot's generic "make it cheaper".
 */
public final class InterpretedCodeRule implements Rule {
    /** A method whose samples are this interpreted is not being compiled, not warming up. */
    static final double METHOD_INTERPRETED = 0.8;
    /** Interpreted samples needed before a share means anything. */
    static final long MIN_SAMPLES = 20;
    /** A twentieth of the CPU in the interpreter is worth a fix (interpreted code runs 10-50x slower), a third is the cause. */
    static final double SHARE_WARN = 0.05;
    static final double SHARE_CRITICAL = 0.3;
    /** With a full code cache, the share above which the hot spot itself is the interpreter's doing. */
    static final double MOSTLY_INTERPRETED = 0.5;
    /** The rest of the service this interpreted means the JIT is behind everywhere, not refusing one method. */
    static final double LAGGING = 0.1;
    /** A code heap with less than this share free is crowded: JDK 17's sweeper flushes compiled code to stay under it. */
    static final double CROWDED = 0.25;
    /** HotSpot's -XX:ReservedCodeCacheSize with tiered compilation. */
    static final double DEFAULT_CACHE = 240.0 * 1024 * 1024;

    @Override public String id() { return "interpreted-code"; }
    @Override public String title() { return "Hot code the JIT does not compile"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> jit = ev.table("jit");
        if (jit.isEmpty()) return notAssessed("no table jit (JFR frame types)");
        Table t = jit.get();
        double samples = Evidence.meta(t, "samples"), interpreted = Evidence.meta(t, "interpreted");
        if (!(samples >= Evidence.MIN_HOTSPOT_SAMPLES)) return notAssessed("too few execution samples in table jit");
        double share = interpreted / samples;
        String ref = "tables/jit";
        Numbers n = new Numbers();
        int top = t.rows().isEmpty() ? -1 : 0; // rows come sorted by interpreted samples
        String hottest = top < 0 ? null : t.text(top, "frame");
        double interp = top < 0 ? 0 : t.number(top, "interpreted");
        double full = Evidence.meta(t, "codeCacheFull");
        String jvmArgs = ev.info().target().getOrDefault("jvmArgs", "");
        Finding.Builder b = finding(Severity.OK).evidence(ref);

        double free = Evidence.meta(t, "codeHeapFreeBytes"), heap = Evidence.meta(t, "codeHeapBytes");
        double reserved = Evidence.meta(t, "codeCacheBytes");
        // JDK 17's sweeper keeps a small cache from filling by flushing compiled methods, so it never
        // reads full: the cache is nearly so, and the whole service runs interpreted.
        boolean crowded = !(full > 0) && free >= 0 && heap > 0 && free / heap < CROWDED && share >= LAGGING;
        if ((full > 0 && share >= SHARE_WARN) || crowded) {
            // The hot spot is the cache's doing only when most of the CPU is interpreted: flushed framework
            // code runs interpreted beside a compiled hot method that is hot on its own.
            if (share >= MOSTLY_INTERPRETED) b.explains("cpu-hotspot");
            String room = free >= 0 && heap > 0 ? " (its fullest part has " + n.tag(kb(free), ref) + " of " + mb(heap) + " left)" : "";
            String why = crowded
                    ? ": the code cache" + (reserved > 0 ? " is " + n.tag(mb(reserved), ref) + " (HotSpot's default is 240 MB) and" : "")
                            + " has " + n.tag(kb(free), ref) + " of " + mb(heap) + " left, so the JVM flushes compiled methods to make"
                            + " room and runs them interpreted until they are compiled again."
                    : ": the code cache filled " + n.tag(Fmt.num(full), ref) + " time(s) since the JVM started" + room
                            + ", and a full code cache stops the JIT.";
            return severity(b, share).culprit("the code cache" + (reserved > 0 ? " (" + mb(reserved) + ")" : ""))
                    .summary(overall(n, share, samples, ref) + (interp < MIN_SAMPLES ? "" : ", most in " + Frames.shortName(hottest)) + why)
                    .numbers(n.refs())
                    .explanation("The JIT keeps compiled methods in the code cache (-XX:ReservedCodeCacheSize, 240 MB by default"
                            + " with tiered compilation). When it fills, HotSpot logs \"CodeCache is full. Compiler has been"
                            + " disabled\" and compiles nothing more until space is freed, if ever; before that, on JDK 17 and"
                            + " earlier, its sweeper flushes compiled methods that have not run lately to make room, and they"
                            + " run interpreted until compiled again. Either way code runs in the bytecode interpreter, 10-50"
                            + " times slower, on every request. Services that load many libraries or generate classes at run"
                            + " time fill it; a cache sized for a small program is too small for a framework's.")
                    .fix("Raise -XX:ReservedCodeCacheSize" + (reserved > 0 ? " (" + mb(reserved) + " here; double it"
                            + (reserved < DEFAULT_CACHE ? ", or remove the flag for HotSpot's 240 MB" : "") + ")" : "")
                            + " and keep -XX:+UseCodeCacheFlushing on. If it fills again, find what keeps generating code: proxies,"
                            + " scripts or serializers built at run time (see hot-path-classloading).")
                    .confirm(ev.confirm("vmoption ReservedCodeCacheSize"))
                    .explains("cpu-saturation").explains("tail-latency")
                    .build();
        }
        String c1 = c1OnlyFlag(jvmArgs);
        if (c1 != null) return c1Only(ev, b, c1, n);
        String off = compilerOffFlag(jvmArgs);
        if (share >= SHARE_WARN && off != null) {
            return severity(b, share).culprit("the JVM's flags: " + off)
                    .summary(overall(n, share, samples, ref) + ": the JVM runs with " + off + ", which turns the JIT off.")
                    .numbers(n.refs())
                    .explanation("With the JIT off every method runs in the bytecode interpreter, 10-50 times slower than"
                            + " compiled code. The flag is meant for debugging the JIT, not for serving.")
                    .fix("Remove " + off + " from the JVM's options.")
                    .confirm(ev.confirm("jvm"))
                    .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency")
                    .build();
        }
        if (top < 0) return b.summary("no sampled frame ran interpreted.").build();
        double onTop = t.number(top, "samples");
        double methodShare = interp / samples;
        String method = Frames.shortName(hottest);
        // A refused method stays interpreted while the code around it is compiled; when the rest runs
        // interpreted too, the JIT is behind (a lab fixed twin on 2 busy CPUs: a 47-byte regex method
        // at 100 % interpreted beside 24 % for the rest, compiled at tier 4 twelve seconds in).
        double rest = (interpreted - interp) / Math.max(1, samples - onTop);
        boolean refused = interp >= MIN_SAMPLES && interp / onTop >= METHOD_INTERPRETED && methodShare >= SHARE_WARN
                && rest < LAGGING;
        if (!refused && share >= SHARE_WARN) {
            return b.severity(Severity.INFO).summary(overall(n, share, samples, ref) + ", across the service"
                            + (interp < MIN_SAMPLES ? "" : " (the most, " + method + ": " + self(n, interp, onTop, samples, ref) + ")")
                            + ": the JIT was still compiling, not refusing one method.")
                    .numbers(n.refs())
                    .explanation("Code runs in the interpreter until the JIT has compiled it. Under load the compiler threads"
                            + " share the CPUs with the requests, so on a busy or small machine compilation lags for seconds"
                            + " and a short warm-up does not cover it. A method the JIT refuses stays interpreted while the code"
                            + " around it is compiled; here the rest of the service ran " + Fmt.pct(rest) + " interpreted.")
                    .fix("Nothing in the code: measure after a longer warm-up (culprit diagnose --warmup), or with CPU to"
                            + " spare for the compiler threads (-XX:CICompilerCount sets how many there are).")
                    .build();
        }
        if (!refused) {
            return b.summary(overall(n, share, samples, ref) + (interp < MIN_SAMPLES ? "" : "; the most, " + method + ": "
                    + self(n, interp, onTop, samples, ref)) + ": compiled code carries the load.").numbers(n.refs()).build();
        }
        return severity(b, methodShare).culprit(hottest)
                .summary(method + " runs in the interpreter: " + self(n, interp, onTop, samples, ref)
                        + ", while the rest of the service ran compiled (" + n.tag(Fmt.pct(rest), ref) + " interpreted): the JIT does not compile it.")
                .numbers(n.refs())
                .explanation("HotSpot's JIT does not compile a method larger than 8,000 bytes of bytecode"
                        + " (-XX:+DontCompileHugeMethods, the default), so a large generated or unrolled method (a decision"
                        + " table, a parser or a mapper generated from a schema) runs in the bytecode interpreter on every call,"
                        + " 10-50 times slower than compiled code, and nothing it calls is inlined into it. The JIT also gives"
                        + " up on a method whose compilation failed or that it had to deoptimize too often;"
                        + " -XX:+PrintCompilation names those (\"COMPILE SKIPPED\", \"made not entrant\").")
                .fix("Split " + method + " into methods under 8,000 bytes of bytecode (javap -c shows its size: the offset of"
                        + " its last instruction): have the generator emit a method per group of rules, or turn the unrolled"
                        + " code into data that a small loop evaluates. As a stopgap, -XX:-DontCompileHugeMethods lets the JIT"
                        + " compile it.")
                .confirm(ev.confirm("vmoption DontCompileHugeMethods"))
                .explains("cpu-hotspot").explains("cpu-saturation").explains("tail-latency")
                .build();
    }

    private static String overall(Numbers n, double share, double samples, String ref) {
        return n.tag(Fmt.pct(share), ref) + " of " + n.tag(Fmt.num(samples), ref) + " execution samples ran interpreted";
    }

    private static String self(Numbers n, double interp, double onTop, double samples, String ref) {
        return n.tag(Fmt.pct(interp / onTop), ref) + " of its " + n.tag(Fmt.num(onTop), ref) + " samples on top of the stack were"
                + " interpreted, " + n.tag(Fmt.pct(interp / samples), ref) + " of JFR's execution samples";
    }

    private static Finding.Builder severity(Finding.Builder b, double share) {
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share);
    }

    /** The JVM's share of the machine's CPU at which C1's slower code sets the service's capacity, or matters. */
    static final double C1_CPU_CRITICAL = 0.5;
    static final double C1_CPU_WARN = 0.2;

    /**
     * Compiled, but never optimized: -XX:TieredStopAtLevel=1 (to 3) stops tiered compilation at C1,
     * so no method reaches C2 (no escape analysis, little inlining, profiled code at levels 2-3).
     * JFR's samples call that code compiled, so the interpreted share cannot see it. Spring Boot's
     * spring-boot:run and bootRun add the flag for a faster start (optimizedLaunch): a service
     * outside the lab started that way served at a fraction of its speed and read "serialization
     * CPU".
     */
    private static Finding c1Only(Evidence ev, Finding.Builder b, String flag, Numbers n) {
        double jvm = ev.stats("cpu", "jvmUser").map(u -> u.quantile(0.9)
                + ev.stats("cpu", "jvmSystem").map(s -> s.quantile(0.9)).orElse(0.0)).orElse(Double.NaN);
        Severity sev = !Double.isFinite(jvm) ? Severity.WARN
                : jvm >= C1_CPU_CRITICAL ? Severity.CRITICAL : jvm >= C1_CPU_WARN ? Severity.WARN : Severity.INFO;
        return b.severity(sev).score(Double.isFinite(jvm) ? Math.min(1, jvm) : 0.3).culprit("the JVM's flags: " + flag)
                .summary("the JVM runs with " + flag + ": its methods are compiled by C1 only, never optimized by C2"
                        + (Double.isFinite(jvm) ? ", and the JVM used " + n.tag(Fmt.pct(jvm), "series/cpu#jvmUser")
                        + " of the machine's CPU at p90" : "") + ".")
                .numbers(n.refs())
                .explanation("HotSpot compiles hot methods twice: quickly with C1, then with C2, which inlines deeply,"
                        + " removes allocations (escape analysis) and optimizes loops. TieredStopAtLevel below 4 stops at C1,"
                        + " so the whole service runs code that needs two to several times the CPU of C2's for the same"
                        + " work: every request costs more CPU, and under load the service saturates early. The flag"
                        + " makes start-up faster and is meant for development: Spring Boot's spring-boot:run (Maven) and"
                        + " bootRun (Gradle) add it unless optimizedLaunch is turned off.")
                .fix("Remove " + flag + " from the JVM's options (and -XX:TieredStopAtLevel from JAVA_TOOL_OPTIONS or the"
                        + " image's entrypoint); start the service with java -jar, or set optimizedLaunch to false where"
                        + " spring-boot:run or bootRun starts it.")
                .confirm(ev.confirm("vmoption TieredStopAtLevel"))
                .explains("cpu-saturation").explains("serialization-cpu").explains("orm-cpu").explains("tail-latency")
                .explains("thread-oversubscription")
                .build();
    }

    /** -XX:TieredStopAtLevel=1, 2 or 3 (C1 only), or null. */
    static String c1OnlyFlag(String jvmArgs) {
        String last = null;
        for (String a : jvmArgs.split("\\s+")) if (a.startsWith("-XX:TieredStopAtLevel=")) last = a;
        if (last == null) return null;
        String level = last.substring("-XX:TieredStopAtLevel=".length());
        return level.equals("1") || level.equals("2") || level.equals("3") ? last : null;
    }

    /** The flag that keeps the JIT from compiling anything, or null. */
    static String compilerOffFlag(String jvmArgs) {
        for (String a : jvmArgs.split("\\s+")) {
            if (a.equals("-Xint") || a.equals("-XX:-UseCompiler") || a.equals("-XX:TieredStopAtLevel=0")) return a;
        }
        return null;
    }

    private static String kb(double bytes) {
        return Fmt.num(Math.round(bytes / 1024)) + " KB";
    }

    private static String mb(double bytes) {
        return Fmt.num(Math.round(bytes / (1024 * 1024))) + " MB";
    }
}
