package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Class loading on the request path: failed class loads, service-loader lookups, resource
 * lookups and JAR scans, per request. A warmed-up service loads nothing per request; each
 * failed load under a fat jar walks every nested jar (CASES.md #3: ~944 lookups per call), and a
 * static-resource check can re-read JAR entries (#1).
 */
public final class ClassLoadingRule implements Rule {
    /** Any lookup on every request is a repeated cost a cache or a one-time init would remove. */
    static final double PER_REQUEST_WARN = 1;
    /** Fifty lookups per request: with nested jars and I/O this costs milliseconds per call. */
    static final double PER_REQUEST_CRITICAL = 50;
    /** A tenth of the CPU in lookups after warm-up: a hot path looks things up. */
    static final double PROFILE_SHARE_WARN = 0.1;
    /** A third: lookups are the request's main work. */
    static final double PROFILE_SHARE_CRITICAL = 0.3;
    /** Without request counts: ten lookups a second after warm-up. */
    static final double PER_SECOND_WARN = 10;

    @Override public String id() { return "hot-path-classloading"; }
    @Override public String title() { return "Class loading, SPI and JAR scans on the request path"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("classloading");
        if (table.isEmpty()) return notAssessed("no table classloading");
        Table t = table.get();
        Map<String, Double> byKind = new LinkedHashMap<>();
        double perRequest = 0, perSecond = 0, totalMs = 0;
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            double pr = ev.perRequest(t, i), ps = ev.perSecond(t, i);
            if (Double.isFinite(pr)) perRequest += pr;
            if (Double.isFinite(ps)) perSecond += ps;
            if (Double.isFinite(t.number(i, "totalMs"))) totalMs += t.number(i, "totalMs");
            byKind.merge(Evidence.text(t, i, "kind"), Double.isFinite(pr) ? pr : ps, Double::sum);
            if (top < 0 || t.number(i, "count") > t.number(top, "count")) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/classloading");
        if (top < 0) return fromProfile(ev, b);
        boolean perReq = ev.requestCount() > 0 || Double.isFinite(t.number(top, "perRequest"));
        Severity sev = perReq
                ? perRequest >= PER_REQUEST_CRITICAL ? Severity.CRITICAL : perRequest >= PER_REQUEST_WARN ? Severity.WARN : Severity.OK
                : perSecond >= PER_SECOND_WARN ? Severity.WARN : Severity.OK;
        Numbers n = new Numbers();
        StringBuilder kinds = new StringBuilder();
        byKind.forEach((k, v) -> kinds.append(kinds.length() == 0 ? "" : ", ").append(n.tag(Fmt.num(v), "tables/classloading")).append(' ').append(k));
        String unit = perReq ? " per request" : "/s";
        if (sev == Severity.OK) {
            // A few failed loads say nothing of the service-loader and resource lookups the profile may show.
            Finding profiled = fromProfile(ev, finding(Severity.OK).evidence("tables/classloading"));
            if (profiled.severity() != Severity.OK) return profiled;
            return b.summary("lookups" + unit + ": " + kinds + ".").numbers(n.refs()).build();
        }
        double timeShare = totalMs > 0 && ev.requestTimeMs() > 0 ? totalMs / ev.requestTimeMs() : Double.NaN;
        double cpuShare = ev.cpuShare(Frames::isLookup);
        double score = Math.max(Double.isFinite(timeShare) ? timeShare : 0, Double.isFinite(cpuShare) ? cpuShare : 0);
        String caller = Evidence.text(t, top, "caller");
        List<String> stack = Evidence.stack(t, top, "stack");
        String culprit = caller.isEmpty() ? Frames.firstNonJdk(stack) : caller;
        // Asked for inside a library (a message source, a parser), the fix is where the service calls it.
        String from = Frames.applicationCaller(culprit, stack);
        boolean bundles = stack.stream().anyMatch(f -> f.startsWith("java.util.ResourceBundle"))
                || culprit != null && culprit.contains("ResourceBundle");
        boolean springMessages = bundles && (culprit != null && culprit.contains("MessageSource")
                || stack.stream().anyMatch(f -> f.startsWith("org.springframework.context.support.") && f.contains("MessageSource")));
        b.severity(sev).score(score).culprit(culprit).evidence("tables/classloading#" + top)
                .summary("lookups" + unit + ": " + kinds + "; top "
                        + n.tag(Fmt.num(perReq ? ev.perRequest(t, top) : ev.perSecond(t, top)), "tables/classloading#" + top)
                        + unit + " " + t.text(top, "kind") + " " + t.text(top, "name") + " by " + culprit
                        + (from == null ? "" : ", called from " + from)
                        + weight(timeShare, cpuShare, ev.cpuRef(), n) + ".")
                .numbers(n.refs())
                .explanation("Class and resource lookups are meant to happen once at startup. On the request path a"
                        + " failed load throws (and is usually swallowed), SPI lookups scan META-INF/services, and"
                        + " under a fat jar every miss walks the nested jars with I/O.")
                .fix("Do the lookup once and keep the result (cache the class, the service, the resource); stop"
                        + " rebuilding the object that performs it; remove optional-module probing per call.")
                .confirm(ev.confirm("classloading -i 5000") + " or " + Evidence.quoted("stack " + stackTarget(culprit)))
                .explains("tail-latency");
        if (bundles) b.explanation(BUNDLE_EXPLANATION).fix(springMessages ? SPRING_MESSAGES_FIX : BUNDLE_FIX);
        if (explainsExceptions(ev, t)) b.explains("caught-exceptions");
        if (byKind.containsKey("jar-scan") || byKind.containsKey("resource-lookup")) b.explains("outside-handler");
        if (score >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation").explains("slow-calls");
        if (LockContentionRule.topLockInLookup(ev)) b.explains("lock-contention");
        return b.build();
    }

    /** Why ResourceBundle misses: each candidate locale is a class and a properties file, found again once its cache entry expires. */
    static final String BUNDLE_EXPLANATION = "java.util.ResourceBundle finds a bundle by trying every candidate for the locale"
            + " (messages_en_US, messages_en, messages) first as a class and then as a properties file, and caches what it found"
            + " for the bundle's time-to-live. With a time-to-live of zero or seconds, every message looked up repeats the misses:"
            + " a failed class load each (under the class loader's lock, with an exception thrown and caught) and a resource"
            + " search through the jars.";
    static final String SPRING_MESSAGES_FIX = "Let Spring's MessageSource cache its bundles: remove spring.messages.cache-duration"
            + " (or setCacheSeconds/setCacheMillis on the bean; unset means cached for good), or give it minutes; if the wording must"
            + " change without a restart, use ReloadableResourceBundleMessageSource, which checks the file's date, not the class path.";
    static final String BUNDLE_FIX = "Keep the ResourceBundle once loaded (a field, or ResourceBundle.Control with the default"
            + " time-to-live), and look messages up in it instead of calling getBundle with a short time-to-live per message.";

    /**
     * A case's {@code classloading} table holds the failed loads JFR records; service-loader and
     * resource lookups throw nothing and are woven only by the {@code classloading} command. The
     * cpu profile still shows them: a service building an XML factory per request
     * ({@code DocumentBuilderFactory.newInstance()} scans META-INF/services through every jar) read
     * "no lookups" with the class path's resource search its hottest frame.
     */
    private Finding fromProfile(Evidence ev, Finding.Builder b) {
        double defineShare = ev.cpuShare(Frames::isDefinition);
        double cpuShare = ev.cpuShare(Frames::isLookup);
        if (defineShare >= PROFILE_SHARE_WARN && !(cpuShare > defineShare)) return definitions(ev, b, defineShare);
        String none = "no failed class loads recorded on the request path";
        if (!(cpuShare >= PROFILE_SHARE_WARN)) {
            if (!Double.isFinite(cpuShare)) return b.summary(none + ".").build();
            return b.summary(none + ", and " + Fmt.pct(cpuShare) + " of CPU samples in lookups.").number(Fmt.pct(cpuShare), ev.cpuRef()).build();
        }
        String caller = ev.cpuCaller(Frames::isLookup);
        Numbers n = new Numbers();
        PerThreadCache cache = PerThreadCache.of(ev, Frames::isLookup);
        b.severity(cpuShare >= PROFILE_SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(cpuShare)
                .culprit(cache != null ? cache.initializer : caller != null ? caller : "class and resource lookups").evidence(ev.cpuRef())
                .summary(none + ", but " + n.tag(Fmt.pct(cpuShare), ev.cpuRef()) + " of CPU samples are in class, resource and"
                        + " service lookups" + (caller == null ? "" : ", most asked for by " + caller)
                        + (cache == null ? "" : cache.summary(n, ev.cpuRef())) + ".")
                .numbers(n.refs())
                .explanation("Class and resource lookups are meant to happen once at startup. A factory built per call"
                        + " (XML parsers and transformers, JAXB contexts, validators, script engines) finds its"
                        + " implementation through the service loader, which reads META-INF/services in every jar,"
                        + " and under a fat jar that walks the nested jars.")
                .fix("Build the factory once and keep it (DocumentBuilderFactory, TransformerFactory, XMLInputFactory and"
                        + " JAXBContext are thread-safe to share; keep builders and transformers per thread or pooled), or"
                        + " name the implementation with its system property so no scan runs.")
                .confirm(ev.confirm("classloading -i 5000") + (caller == null ? "" : " or " + Evidence.quoted("stack " + stackTarget(caller))))
                .explains("tail-latency").explains("cpu-saturation");
        if (cache != null) b.explanation(PerThreadCache.EXPLANATION).fix(PerThreadCache.FIX).explains("repeated-construction");
        else if (resourceShare(ev) * 2 >= cpuShare) b.explanation(RESOURCE_EXPLANATION).fix(RESOURCE_FIX);
        if (LockContentionRule.topLockInLookup(ev)) b.explains("lock-contention");
        return b.build();
    }

    /**
     * Frames that find or read a resource's bytes (not a class, not a service): a lookup by name and
     * the jar: URL streams that inflate the entry, the JDK's and Spring Boot's.
     */
    private static final String[] RESOURCE_READS = {
        ".getResource", "JarURLConnection", "JarUrlConnection", "org.springframework.boot.loader.net.protocol.jar.LazyDelegatingInputStream"
    };

    /** Frames of class loading and service scans: a resource they read is theirs, not the request's own. */
    private static final String[] LOADS_AND_SCANS = {"ServiceLoader", ".loadClass", ".findClass"};

    /** The share of CPU samples reading resources outside class loading and service scans; 0 without a profile. */
    private static double resourceShare(Evidence ev) {
        return ev.cpuProfileIfAny().map(p -> (double) p.only(st -> contains(st, RESOURCE_READS) && !contains(st, LOADS_AND_SCANS))
                .samples() / Math.max(1, p.samples())).orElse(0.0);
    }

    private static boolean contains(String[] stack, String[] parts) {
        for (String f : stack) for (String part : parts) if (f.contains(part)) return true;
        return false;
    }

    static final String RESOURCE_EXPLANATION = "The request reads a resource from the class path every time: the class loader"
            + " searches its jars for the name, and the bytes come out of the application's jar inflated again (under a"
            + " fat jar, a jar nested in a jar, behind the nested jar's lock). Resources are meant to be read once.";

    static final String RESOURCE_FIX = "Read the resource once and keep its content (a field set at startup, or a map by name"
            + " for many); for templates, keep the template engine's cache on (Thymeleaf's spring.thymeleaf.cache,"
            + " FreeMarker's and Mustache's template caches) instead of loading the file per render.";

    /**
     * Classes defined on the request path: a dynamic proxy built in a fresh class loader, a CGLIB
     * enhancer without its cache, a script compiled per call. Each defines a class (bytecode
     * generated, parsed, verified, linked) and fills Metaspace, whose threshold then forces
     * collections.
     */
    private Finding definitions(Evidence ev, Finding.Builder b, double share) {
        String caller = ev.cpuCaller(Frames::isDefinition);
        Numbers n = new Numbers();
        double metadataGcs = metadataCollections(ev);
        b.severity(share >= PROFILE_SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share)
                .culprit(caller != null ? caller : "classes defined at run time").evidence(ev.cpuRef())
                .summary(n.tag(Fmt.pct(share), ev.cpuRef()) + " of CPU samples define classes at run time (dynamic proxies,"
                        + " generated or compiled classes)" + (caller == null ? "" : ", most for " + caller)
                        + (metadataGcs > 0 ? "; Metaspace filling forced " + n.tag(Fmt.num(metadataGcs), "tables/gc-causes") + " collection(s)" : "")
                        + ".")
                .numbers(n.refs())
                .explanation("Defining a class generates, parses, verifies and links its bytecode, and its metadata lives in"
                        + " Metaspace until its class loader is collected. The JDK and the code generators cache the classes"
                        + " they make per class loader and interface list, so building the same proxy or generated class"
                        + " per request, or in a new class loader each time, defines a new class on every call.")
                .fix("Build the proxy, generated class or compiled script once and reuse it (keep the instance, or its"
                        + " Class or constructor): no new ClassLoader per call, CGLIB's Enhancer with its cache on, Byte"
                        + " Buddy's TypeCache, templates and expressions compiled once.")
                .confirm(caller == null ? ev.confirm("classloading -i 5000") : ev.confirm("stack " + stackTarget(caller) + " -n 3"))
                .explains("tail-latency").explains("cpu-saturation").explains("gc-pressure");
        return b.build();
    }

    private static double metadataCollections(Evidence ev) {
        Optional<Table> causes = ev.rows("gc-causes");
        double n = 0;
        if (causes.isPresent()) {
            Table t = causes.get();
            for (int i = 0; i < t.rows().size(); i++) {
                if (String.valueOf(t.text(i, "cause")).startsWith("Metadata GC") && Double.isFinite(t.number(i, "count"))) n += t.number(i, "count");
            }
        }
        return n;
    }

    // Failed class loads surface as ClassNotFoundException / NoClassDefFoundError; other caught
    // exceptions count only if thrown from a frame that also performs the lookups.
    private static boolean explainsExceptions(Evidence ev, Table cl) {
        Optional<Table> ex = ev.rows("exceptions");
        if (ex.isEmpty()) return false;
        Table t = ex.get();
        for (int i = 0; i < t.rows().size(); i++) {
            String type = String.valueOf(t.text(i, "type")).toLowerCase(Locale.ROOT);
            if (type.contains("classnotfound") || type.contains("noclassdeffound") || type.contains("serviceconfiguration")) return true;
            for (int j = 0; j < cl.rows().size(); j++) {
                String caller = cl.text(j, "caller");
                if (caller != null && Frames.mentions(Evidence.stack(t, i, "stack"), Frames.stripLine(caller))) return true;
            }
        }
        return false;
    }

    private static String weight(double timeShare, double cpuShare, String cpuRef, Numbers n) {
        String time = Double.isFinite(timeShare) ? n.tag(Fmt.pct(timeShare), "tables/classloading") + " of request time" : "";
        String cpu = Double.isFinite(cpuShare) && cpuShare > 0 ? n.tag(Fmt.pct(cpuShare), cpuRef) + " of CPU samples in lookups" : "";
        if (time.isEmpty() && cpu.isEmpty()) return "";
        return " (" + time + (time.isEmpty() || cpu.isEmpty() ? "" : ", ") + cpu + ")";
    }

    private static String stackTarget(String frame) {
        String target = Frames.classAndMethod(frame);
        return target == null ? "java.lang.ClassLoader loadClass" : target;
    }
}
