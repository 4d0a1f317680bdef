package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Engines;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Expensive objects built again on every request (converters, mappers, clients, contexts) that
 * should be built once (CASES.md #3: a new HttpMessageConverters per encode/decode). The cost
 * comes from the evidence: the table's {@code meanMs}, else the CPU profile's share of the
 * type's constructor. Without a construction probe, the rule still sees it in the stacks of
 * per-request class loading: a lookup made from inside an application or library constructor
 * means that constructor runs per request. The construction also explains the class loading and
 * exceptions its constructor causes when their stacks pass through it.
 */
public final class ConstructionRule implements Rule {
    /** The collector records only costly types; one per request is one too many for those. */
    static final double PER_REQUEST_WARN = 1;
    /** A quarter of CPU or request time in constructors is the dominant cost of the service. */
    static final double COST_CRITICAL = 0.25;
    /**
     * Jackson's two package roots: 2.x under com.fasterxml, 3.x (Spring Boot 4's default) under tools.jackson,
     * with the same classes below them.
     */
    /** gRPC's channel ({@code ManagedChannelBuilder.build()}), whose cost is its connections ({@link #connectShare}). */
    static final String GRPC_CHANNEL = "io.grpc.internal.ManagedChannelImpl";
    static final List<String> JACKSON_ROOTS = List.of("com.fasterxml.jackson.", "tools.jackson.");
    /** Jackson 2.10+'s mapper builder: what it does before build() is the new mapper's set-up too. */
    static final List<String> MAPPER_BUILDERS = jackson("databind.cfg.MapperBuilder.");
    /** Jackson's mappers: each instance carries its own serializer and deserializer caches. */
    static final List<String> JACKSON_MAPPERS = jackson("databind.ObjectMapper", "databind.json.JsonMapper",
            "dataformat.xml.XmlMapper", "dataformat.yaml.YAMLMapper", "dataformat.csv.CsvMapper");
    /** Where a mapper builds what its caches then hold: run once per type by a mapper that lives on. */
    static final List<String> JACKSON_CACHE_MISSES = jackson("databind.ser.BasicSerializerFactory.",
            "databind.ser.BeanSerializerFactory.", "databind.ser.SerializerCache.",
            "databind.deser.BasicDeserializerFactory.", "databind.deser.BeanDeserializerFactory.",
            "databind.deser.DeserializerCache.",
            // A new mapper's module discovery (a service-loader scan of the class path) is set-up of the same kind.
            "databind.ObjectMapper.findModules", "databind.ObjectMapper.findAndRegisterModules",
            "databind.ObjectMapper.registerModule",
            // ... and through the builder (JsonMapper.builder().findAndAddModules().build()), before the constructor runs.
            "databind.cfg.MapperBuilder.findModules", "databind.cfg.MapperBuilder.findAndAddModules",
            "databind.cfg.MapperBuilder.addModule");

    private static List<String> jackson(String... below) {
        List<String> names = new java.util.ArrayList<>();
        for (String root : JACKSON_ROOTS) for (String b : below) names.add(root + b);
        return List.copyOf(names);
    }

    @Override public String id() { return "repeated-construction"; }
    @Override public String title() { return "Expensive objects rebuilt on every request"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("construction");
        if (table.isEmpty()) {
            return fromLookupStacks(ev).or(() -> fromEngineProfile(ev)).or(() -> fromFactoryProfile(ev)).or(() -> fromCompileProfile(ev))
                    .orElseGet(() -> notAssessed("no table construction,"
                    + " and no per-request class loading from inside a constructor"));
        }
        Table t = table.get();
        int top = -1;
        double topCost = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!(ev.perRequest(t, i) >= PER_REQUEST_WARN)) continue;
            double c = cost(ev, t, i), cold = coldShare(ev, t.text(i, "type"), Evidence.text(t, i, "caller"));
            double key = Math.max(Double.isFinite(c) ? c : 0, Double.isFinite(cold) ? cold : 0);
            if (top < 0 || key > topCost) { top = i; topCost = key; }
        }
        if (top < 0) {
            Optional<Finding> factories = fromEngineProfile(ev).or(() -> fromFactoryProfile(ev)).or(() -> fromCompileProfile(ev));
            if (factories.isPresent()) return factories.get();
            Numbers n = new Numbers();
            return finding(Severity.OK).evidence("tables/construction").summary("no costly type constructed once or more per request ("
                    + n.tag(String.valueOf(t.rows().size()), "tables/construction") + " types watched).").numbers(n.refs()).build();
        }
        double cost = cost(ev, t, top);
        String type = t.text(top, "type");
        String caller = Evidence.text(t, top, "caller");
        boolean timed = Double.isFinite(t.number(top, "meanMs"));
        String unit = timed ? "request time" : "CPU samples";
        String row = "tables/construction#" + top;
        Numbers n = new Numbers();
        double cold = coldShare(ev, type, caller);
        Optional<Engines.Engine> engine = Engines.of(type);
        Finding.Builder b = describe(ev, type, caller, Double.isFinite(cold) ? Math.max(cold, Double.isFinite(cost) ? cost : 0) : cost)
                .evidence(row);
        if (Double.isFinite(cold) && engine.isEmpty() && !GRPC_CHANNEL.equals(type)) b.explains("serialization-cpu");
        if (Double.isFinite(cold) && engine.isPresent() && engine.get().shows != null) b.explains(engine.get().shows);
        if (Double.isFinite(cold) && lookupsUnder(ev, type)) b.explains("hot-path-classloading");
        if (Double.isFinite(cold) && lockUnder(ev, type)) b.explains("lock-contention");
        if (Double.isFinite(cold) && hotMethodUnder(ev, caller)) b.explains("cpu-hotspot");
        engine.ifPresent(e -> engineText(b, e));
        if (GRPC_CHANNEL.equals(type)) channelText(b);
        String coldText = !Double.isFinite(cold) ? ""
                : GRPC_CHANNEL.equals(type) ? "; each new channel connects again: " + n.tag(Fmt.pct(cold), ev.cpuRef())
                        + " of CPU samples in TLS handshakes, SSL contexts and the channels' connection set-up"
                : engine.isPresent() ? "; each new " + simpleName(type) + " starts without " + engine.get().caches + ": "
                        + n.tag(Fmt.pct(cold), ev.cpuRef()) + " of CPU samples run in " + engine.get().library + " under "
                        + builderClass(caller)
                : "; each new mapper builds its serializers again: " + n.tag(Fmt.pct(cold), ev.cpuRef())
                        + " of CPU samples in Jackson's serializer and deserializer factories "
                        + (coldUnderBuilder(ev, caller) ? "under " + builderClass(caller) : "(used elsewhere than " + builderClass(caller) + ")");
        return b.summary(n.tag(Fmt.num(ev.perRequest(t, top)), row) + " new " + type + " per request ("
                        + n.tag(Fmt.num(t.number(top, "count")), row) + " in total)" + (caller.isEmpty() ? "" : ", built by " + caller)
                        + (Double.isFinite(cost) ? ", " + n.tag(Fmt.pct(cost), timed ? row : ev.cpuRef()) + " of " + unit : "")
                        + coldText + ".")
                .numbers(n.refs())
                .build();
    }

    private static void channelText(Finding.Builder b) {
        b.explanation("A gRPC ManagedChannel is built to live as long as the service: it keeps its connections open,"
                + " multiplexes every call over HTTP/2 and reconnects by itself. Built per request, each request pays the"
                + " channel's connect (with TLS, a full handshake on both sides) and its shutdown, and the connections"
                + " never warm up.")
                .fix("Build the ManagedChannel once at start-up (a singleton, or one per target) and share it: channels and"
                        + " stubs are thread-safe, and a stub made from a shared channel per call costs nothing. Shut it down"
                        + " when the service stops, not after each call.");
    }

    private static void engineText(Finding.Builder b, Engines.Engine e) {
        String type = simpleName(e.type);
        String who = e.library.equals(type) ? type : e.library + "'s " + type;
        b.explanation(who + " is cheap to construct and dear to use cold: it keeps"
                + " " + e.caches + " in the instance, for the next call. Built per request, every request"
                + " starts with those caches empty and does that work again, while the constructor itself barely shows.")
                .fix("Build one " + e.shared + " at start-up (a singleton bean or a static final field) and share it"
                        + " (it is safe to share once configured); if configurations differ, keep one per configuration.");
    }

    /** Samples an engine's constructor must hold before the profile alone says it runs per request: a start-up's one holds fewer. */
    static final int PROFILE_INIT_SAMPLES = 3;
    static final double PROFILE_INIT_SHARE = 0.005;

    /**
     * An engine ({@link Engines}) built on the request path as the CPU profile shows it, without a
     * construction probe (a JFR file, an agent from before the engine was listed): its constructor
     * in the samples, under an application frame, and the library's work under that frame's class
     * at least a tenth of the CPU. A Dropwizard service built a Hibernate Validator factory per
     * request: 4 % of its samples in building the factory, 70 % in the new factory's metadata under
     * validate, which read as validation CPU with the fix "drop @Valid".
     */
    private Optional<Finding> fromEngineProfile(Evidence ev) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty() || profile.get().samples() == 0) return Optional.empty();
        CpuProfile p = profile.get();
        Engines.Engine best = null;
        String bestCaller = null;
        double bestCold = 0;
        for (Engines.Engine e : Engines.ALL) {
            String init = e.type + ".<init>";
            CpuProfile built = p.only(st -> indexOf(st, init) >= 0);
            if (built.samples() < PROFILE_INIT_SAMPLES || built.samples() < PROFILE_INIT_SHARE * p.samples()) continue;
            String caller = built.sumBy(st -> {
                for (int k = indexOf(st, init) - 1; k >= 0; k--) if (Frames.isApplication(st[k])) return st[k];
                return null;
            }).entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
            if (caller == null) continue;
            double cold = (double) samplesUnder(p, builderClass(caller), e::runs) / p.samples();
            if (cold >= FACTORY_SHARE_WARN && cold > bestCold) {
                best = e;
                bestCaller = caller;
                bestCold = cold;
            }
        }
        if (best == null) return Optional.empty();
        Numbers n = new Numbers();
        Finding.Builder b = describe(ev, best.type, bestCaller, bestCold).evidence(ev.cpuRef());
        engineText(b, best);
        if (best.shows != null) b.explains(best.shows);
        if (lookupsUnder(ev, best.type)) b.explains("hot-path-classloading");
        return Optional.of(b.summary("new " + best.type + " built on the request path by " + bestCaller + " (seen in the CPU profile;"
                        + " no construction probe counted it): each new " + simpleName(best.type) + " starts without " + best.caches + ", and "
                        + n.tag(Fmt.pct(bestCold), ev.cpuRef()) + " of CPU samples run in " + best.library + " under " + builderClass(bestCaller) + ".")
                .numbers(n.refs()).build());
    }

    /** The outermost (nearest the root) position of {@code method} in a root-first stack, or -1. */
    private static int indexOf(String[] stack, String method) {
        for (int i = 0; i < stack.length; i++) if (Frames.stripLine(stack[i]).equals(method)) return i;
        return -1;
    }

    /**
     * The JDK's factory look-ups, which the construction probe does not watch (they are JDK
     * classes): each {@code newInstance} finds its implementation through system properties, a
     * properties file and the service loader's scan of every jar, then builds a new factory. A
     * service that built two XML factories per request spent 15 % of its CPU there and read "no
     * costly type constructed". Bean Validation's bootstrap is the same kind of look-up (its
     * provider through the service loader) and builds every constraint's metadata again: a
     * ValidatorFactory built per request took 58 % of a service's CPU.
     */
    static final Set<String> FACTORIES = Set.of("javax.xml.parsers.DocumentBuilderFactory.newInstance",
            "javax.xml.parsers.SAXParserFactory.newInstance", "javax.xml.transform.TransformerFactory.newInstance",
            "javax.xml.stream.XMLInputFactory.newInstance", "javax.xml.stream.XMLInputFactory.newFactory",
            "javax.xml.stream.XMLOutputFactory.newInstance", "javax.xml.stream.XMLOutputFactory.newFactory",
            "javax.xml.xpath.XPathFactory.newInstance", "javax.xml.validation.SchemaFactory.newInstance",
            "javax.xml.datatype.DatatypeFactory.newInstance", "jakarta.xml.bind.JAXBContext.newInstance",
            "javax.xml.bind.JAXBContext.newInstance", "javax.script.ScriptEngineManager.<init>",
            "jakarta.validation.Validation.buildDefaultValidatorFactory", "javax.validation.Validation.buildDefaultValidatorFactory",
            "jakarta.validation.Validation$GenericBootstrapImpl.configure", "javax.validation.Validation$GenericBootstrapImpl.configure");
    /** A tenth of the CPU in factory look-ups after warm-up: they run on the hot path. */
    static final double FACTORY_SHARE_WARN = 0.1;

    private Optional<Finding> fromFactoryProfile(Evidence ev) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty()) return Optional.empty();
        double share = ev.cpuShare(ConstructionRule::isFactory);
        if (!(share >= FACTORY_SHARE_WARN)) return Optional.empty();
        // One pass: each sample counts for the first factory look-up on its stack.
        String top = profile.get().sumBy(stack -> {
            for (String f : stack) if (isFactory(f)) return Frames.stripLine(f);
            return null;
        }).entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElseThrow();
        String type = top.substring(0, top.lastIndexOf('.'));
        String caller = ev.cpuCaller(ConstructionRule::isFactory);
        Numbers n = new Numbers();
        Finding.Builder b = describe(ev, type, caller == null ? "" : caller, share);
        // The look-ups' service-loader scans are the class loading the lookups rule sees: when most of them run here, this is their cause.
        CpuProfile lookups = profile.get().only(st -> java.util.Arrays.stream(st).anyMatch(Frames::isLookup));
        if (lookups.samples() > 0 && lookups.only(st -> java.util.Arrays.stream(st).anyMatch(ConstructionRule::isFactory)).samples()
                >= lookups.samples() / 2.0) b.explains("hot-path-classloading");
        return Optional.of(b.evidence(ev.cpuRef())
                .summary(n.tag(Fmt.pct(share), ev.cpuRef()) + " of CPU samples create factories (most "
                        + Frames.shortName(top) + ")" + (caller == null ? "" : ", called from " + caller)
                        + ": each call looks up the implementation, with a service-loader scan of every jar, and builds a new"
                        + " factory; share it (the factories are thread-safe once configured).")
                .numbers(n.refs()).build());
    }

    /** Text compiled again per call that the library means to be compiled once ({@link PerCallCompile}). */
    private Optional<Finding> fromCompileProfile(Evidence ev) {
        return PerCallCompile.find(ev).map(c -> {
            String caller = c.caller == null ? "" : c.caller;
            Numbers n = new Numbers();
            Finding.Builder b = describe(ev, caller.isEmpty() ? c.kind.name() : caller, caller, c.share)
                    .evidence(ev.cpuRef())
                    .explanation("The library compiles the text into an object meant to be kept and used again: a schema, an"
                            + " expression, a path. Compiled per call, the parsing and everything the compiled form resolves"
                            + " on its first use is paid by every request, and grows with the text.")
                    .fix(c.kind.fix);
            if (hotMethodUnder(ev, caller)) b.explains("cpu-hotspot");
            return b.summary(n.tag(Fmt.pct(c.share), ev.cpuRef()) + " of CPU samples " + c.kind.what + " on every call"
                            + (caller.isEmpty() ? "" : ", called from " + caller) + ": what it builds is thrown away and"
                            + " built again each time.")
                    .numbers(n.refs()).build();
        });
    }

    private static boolean isFactory(String frame) {
        return FACTORIES.contains(Frames.stripLine(frame));
    }

    // Stacks are top frame first: the deepest (outermost) non-JDK constructor is the object being
    // built, the frame below it is who builds it.
    private Optional<Finding> fromLookupStacks(Evidence ev) {
        Optional<Table> cl = ev.rows("classloading");
        if (cl.isEmpty()) return Optional.empty();
        Table t = cl.get();
        for (int i = 0; i < t.rows().size(); i++) {
            if (!(ev.perRequest(t, i) >= PER_REQUEST_WARN)) continue;
            List<String> stack = Evidence.stack(t, i, "stack");
            for (int f = stack.size() - 1; f >= 0; f--) {
                String frame = Frames.stripLine(stack.get(f));
                if (!frame.endsWith(".<init>") || Frames.isJdk(frame) || isThrowable(frame)) continue;
                String type = frame.substring(0, frame.length() - ".<init>".length());
                String caller = f + 1 < stack.size() ? stack.get(f + 1) : "";
                double cost = hotShare(ev, type);
                Numbers n = new Numbers();
                return Optional.of(describe(ev, type, caller, cost).evidence("tables/classloading#" + i)
                        .summary(n.tag(Fmt.num(ev.perRequest(t, i)), "tables/classloading#" + i) + " " + t.text(i, "kind")
                                + " per request run inside new " + type + (caller.isEmpty() ? "" : ", built by " + caller) + " on every call"
                                + (Double.isFinite(cost) ? ", " + n.tag(Fmt.pct(cost), ev.cpuRef()) + " of CPU samples" : "")
                                + " (seen in the lookup stacks; no construction probe).")
                        .numbers(n.refs())
                        .build());
            }
        }
        return Optional.empty();
    }

    private Finding.Builder describe(Evidence ev, String type, String caller, double cost) {
        Finding.Builder b = finding(cost >= COST_CRITICAL ? Severity.CRITICAL : Severity.WARN)
                .score(Double.isFinite(cost) ? cost : 0.1).culprit(caller.isEmpty() ? type : caller)
                .explanation("Objects like converters, mappers and clients are designed to be built once and shared:"
                        + " their constructors scan the classpath, probe optional modules and build caches. Built per"
                        + " request, that one-time work becomes the request's main cost.")
                .fix("Build it once (a singleton bean or a static field) and reuse it; if it must vary, cache per key.")
                .confirm(ev.confirm("trace " + Frames.classAndMethod(caller.isEmpty() ? type + ".<init>" : caller) + " '#cost > 10'"))
                .explains("tail-latency");
        if (stacksPassThrough(ev, "classloading", type, caller)) b.explains("hot-path-classloading");
        if (stacksPassThrough(ev, "exceptions", type, caller)) b.explains("caught-exceptions");
        if (cost >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation").explains("slow-calls").explains("thread-oversubscription");
        return b;
    }

    private static boolean isThrowable(String initFrame) {
        String type = initFrame.substring(0, initFrame.length() - ".<init>".length());
        return type.endsWith("Exception") || type.endsWith("Error") || type.endsWith("Throwable");
    }

    private static double cost(Evidence ev, Table t, int row) {
        double meanMs = t.number(row, "meanMs");
        double reqMs = ev.meanLatencyMs();
        if (Double.isFinite(meanMs) && reqMs > 0) return meanMs * ev.perRequest(t, row) / reqMs;
        return hotShare(ev, t.text(row, "type"));
    }

    /**
     * What a new mapper or engine costs after its constructor. A Jackson mapper starts with empty
     * serializer and deserializer caches, so every request it serves builds them again, in the
     * factories rather than the constructor (a service building one ObjectMapper per request spent 2
     * % of request time in the constructor and 38 % of its CPU building serializers); an engine
     * ({@link Engines}) parses or introspects again whatever it is asked for, anywhere in its library.
     * The samples counted pass through the class that builds it (which may build it in one method
     * and use it in another), so a shared one elsewhere is not charged. NaN for other types, without
     * a CPU profile, or when none is seen.
     */
    private static double coldShare(Evidence ev, String type, String caller) {
        if (GRPC_CHANNEL.equals(type)) return connectShare(ev);
        Optional<Engines.Engine> engine = Engines.of(type);
        if ((engine.isEmpty() && !JACKSON_MAPPERS.contains(type)) || caller.isEmpty()) return Double.NaN;
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty() || profile.get().samples() == 0) return Double.NaN;
        Predicate<String> cold = engine.isPresent() ? engine.get()::runs : ConstructionRule::jacksonCacheMiss;
        long hit = samplesUnder(profile.get(), builderClass(caller), cold);
        if (hit == 0 && engine.isEmpty()) hit = samplesAnywhere(profile.get());
        return hit > 0 ? (double) hit / profile.get().samples() : Double.NaN;
    }

    /**
     * What a new gRPC channel costs after its constructor, which builds nothing but the channel's
     * plumbing: its first call connects, on the transport's event loop rather than under the code
     * that built it (a TCP connect, a TLS handshake with a certificate's signature on both sides,
     * HTTP/2's preface and settings), and its shutdown tears that down again. A channel that lives
     * on does that once. The share of CPU samples in that set-up, on any stack; NaN without a
     * profile or when none is seen. A blind gRPC service (session 48) built a TLS channel per
     * request: 24 % of its CPU in TLS handshakes, 4 % building SSL contexts, read as "CPU saturated,
     * no cause identified".
     */
    private static double connectShare(Evidence ev) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty() || profile.get().samples() == 0) return Double.NaN;
        double share = profile.get().share(ConstructionRule::connectionSetUp);
        return share > 0 ? share : Double.NaN;
    }

    /** A frame of a connection's set-up: a TLS handshake or SSL context, a gRPC channel's connect, its transport's start. */
    static boolean connectionSetUp(String frame) {
        return frame.contains("andshake") && (frame.contains(".ssl.") || frame.contains("tcnative.SSL."))
                || frame.contains(".ssl.") && frame.contains("SslContext") || frame.startsWith("io.grpc.internal.InternalSubchannel")
                || frame.contains("grpc.netty.NettyClientTransport.start") || frame.startsWith("io.grpc.internal.ManagedChannelImpl");
    }

    private static boolean jacksonCacheMiss(String frame) {
        return JACKSON_CACHE_MISSES.stream().anyMatch(frame::startsWith);
    }

    /**
     * Samples in Jackson's factories on any stack, for mappers built per request that none of them
     * passes through: a helper that builds them ({@code Json.mapper()}) for code elsewhere to use, or
     * a reactive pipeline whose stacks hold operators, not the code that assembled it. Once warm, a
     * mapper that lives on builds nothing: these samples are new mappers filling their caches. A
     * reactive service (session 40) built two mappers per request in a helper and read
     * "serialization CPU 46 %, repeated construction 0.7 % of request time", the chain backwards.
     */
    private static long samplesAnywhere(CpuProfile profile) {
        return profile.only(stack -> {
            for (String f : stack) if (jacksonCacheMiss(f)) return true;
            return false;
        }).samples();
    }

    /** Whether the cold work {@link #coldShare} found runs under the builder's class (else anywhere in the profile). */
    private static boolean coldUnderBuilder(Evidence ev, String caller) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty() || caller.isEmpty()) return false;
        return samplesUnder(profile.get(), builderClass(caller), ConstructionRule::jacksonCacheMiss) > 0;
    }

    /** Samples with a {@code cold} frame above (called from) a frame of class {@code builder}. */
    private static long samplesUnder(CpuProfile profile, String builder, Predicate<String> cold) {
        return profile.only(stack -> {
            boolean underBuilder = false;
            for (String f : stack) {
                underBuilder |= inClass(f, builder);
                if (underBuilder && cold.test(f)) return true;
            }
            return false;
        }).samples();
    }

    /**
     * Whether most of the profile's class, resource and service lookups run inside the built type's
     * own methods (a mapper's module discovery, an engine's set-up): then they are this
     * construction's, not a class-loading fault of their own. A blind service (session 41) built a
     * mapper per row and called findAndRegisterModules on each: 56 % of its CPU in lookups read as
     * the root cause, the construction as a WARN below it.
     */
    private static boolean lookupsUnder(Evidence ev, String type) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty()) return false;
        CpuProfile lookups = profile.get().only(st -> java.util.Arrays.stream(st).anyMatch(Frames::isLookup));
        if (lookups.samples() == 0) return false;
        return lookups.only(st -> java.util.Arrays.stream(st).anyMatch(f -> ownSetUp(f, type))).samples() >= lookups.samples() / 2.0;
    }

    /** A frame of the built type's own methods, or of its builder's (Jackson's MapperBuilder for a mapper). */
    private static boolean ownSetUp(String frame, String type) {
        return frame.startsWith(type + ".") || JACKSON_MAPPERS.contains(type) && MAPPER_BUILDERS.stream().anyMatch(frame::startsWith);
    }

    /**
     * Whether the most blocked lock is taken inside the built type's own set-up: a mapper's module
     * discovery reads every jar's service files under the jar's lock, and a blind Quarkus service
     * (session 44) that built a mapper per message read 53 % of request time blocked on
     * RandomAccessFile at MapperBuilder.findModules as a contention of its own.
     */
    private static boolean lockUnder(Evidence ev, String type) {
        Optional<Table> locks = ev.rows(LockContentionRule.lockTable(ev));
        if (locks.isEmpty()) return false;
        Table t = locks.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (top < 0 || t.number(i, "blockedMs") > t.number(top, "blockedMs")) top = i;
        }
        if (top < 0) return false;
        for (String f : Evidence.stack(t, top, "waiterStack")) if (ownSetUp(f, type)) return true;
        return false;
    }

    private static String simpleName(String type) {
        return type.substring(type.lastIndexOf('.') + 1);
    }

    /** {@code a.B.m:12} → {@code a.B}: the class that builds the object. */
    private static String builderClass(String caller) {
        String m = Frames.stripLine(caller);
        int dot = m.lastIndexOf('.');
        return dot > 0 ? m.substring(0, dot) : m;
    }

    /** Whether {@code frame} runs in class {@code cls} or one of its nested classes (lambdas included). */
    private static boolean inClass(String frame, String cls) {
        return frame.startsWith(cls + ".") || frame.startsWith(cls + "$");
    }

    /** Whether the method cpu-hotspot names (its deepest application frame that computes) is in the builder's class. */
    static boolean hotMethodUnder(Evidence ev, String caller) {
        if (caller.isEmpty()) return false;
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty()) return false;
        Map.Entry<String, Long> top = CpuHotspotRule.top(profile.get().sumBy(CpuHotspotRule::computingMethod));
        String builder = builderClass(caller);
        return top != null && inClass(top.getKey(), builder);
    }

    private static double hotShare(Evidence ev, String type) {
        String init = type + ".<init>";
        double share = ev.cpuShare(f -> Frames.stripLine(f).equals(init));
        return share > 0 ? share : Double.NaN;
    }

    // The link is in the evidence: a lookup or throw whose stack passes through this type or its caller.
    private static boolean stacksPassThrough(Evidence ev, String table, String type, String caller) {
        Optional<Table> t = ev.rows(table);
        if (t.isEmpty()) return false;
        for (int i = 0; i < t.get().rows().size(); i++) {
            List<String> stack = Evidence.stack(t.get(), i, "stack");
            if (Frames.mentions(stack, type) || (!caller.isEmpty() && Frames.mentions(stack, Frames.stripLine(caller)))) return true;
        }
        return false;
    }
}
