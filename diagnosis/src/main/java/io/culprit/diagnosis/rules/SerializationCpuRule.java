package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * CPU spent (de)serializing: JSON, XML, Java serialization, protobuf. Keyed to the serialization
 * libraries' packages (a mechanism, not an application), excluding their constructors, which
 * repeated-construction weighs instead. With a cpu profile, the application method above the
 * serializer is the culprit, and one that parses gets the fix for parsing (a service outside the
 * lab parsed an 800 KB JSON from Redis on every request; the verdict named a Jackson frame and
 * the advice for large responses).
 */
public final class SerializationCpuRule implements Rule {
    /**
     * A quarter of CPU in (de)serialization: payloads too large or mapped too often. A JSON API
     * spends a fifth of its CPU there by itself: the lab's n-plus-one, fixed, read 13 %, 14 % and
     * 21 % in three CI runs, and at 20 % the last run named serialization as its root cause.
     */
    static final double SHARE_WARN = 0.25;
    static final double SHARE_CRITICAL = 0.4;
    private static final String[] SERIALIZERS = {
        "com.fasterxml.jackson.", "tools.jackson.", "com.google.gson.", "java.io.ObjectOutputStream", "java.io.ObjectInputStream",
        "javax.xml.bind.", "jakarta.xml.bind.", "com.sun.xml.", "com.google.protobuf.", "org.yaml.snakeyaml.",
        "kotlinx.serialization.", "com.esotericsoftware.kryo.", "org.apache.avro.", "jakarta.json.", "javax.json.",
        "com.alibaba.fastjson", "org.json."
    };

    @Override public String id() { return "serialization-cpu"; }
    @Override public String title() { return "CPU spent serializing and deserializing"; }

    /**
     * {application's share, the response converter's share} of CPU samples when serialization under
     * {@code app} outweighs the response's own (Spring's HTTP message converters, JAX-RS providers)
     * four to one and is most of the serialization: the service serializes something it does not
     * send. A booking service outside the lab built a 2 MB JSON snapshot per request as a DEBUG log
     * argument with DEBUG off (51 % of samples, the response's converter 3 %). Null otherwise.
     */
    static double[] notTheResponse(Evidence ev, String app) {
        java.util.Optional<io.culprit.diagnosis.CpuProfile> p = ev.cpuProfileIfAny();
        if (p.isEmpty() || p.get().samples() == 0) return null;
        io.culprit.diagnosis.CpuProfile serializing = p.get().only(st -> {
            for (String f : st) if (isSerialization(f)) return true;
            return false;
        });
        double total = p.get().samples();
        double response = serializing.only(st -> {
            for (String f : st) if (f.startsWith("org.springframework.http.converter.") || f.startsWith("jakarta.ws.rs.")
                    || f.startsWith("org.glassfish.jersey.message.") || f.startsWith("org.jboss.resteasy.")) return true;
            return false;
        }).samples() / total;
        double mine = serializing.only(st -> {
            for (String f : st) if (io.culprit.diagnosis.Frames.stripLine(f).equals(app)) return true;
            return false;
        }).samples() / total;
        return mine >= 4 * response && mine * 2 >= serializing.samples() / total ? new double[] {mine, response} : null;
    }

    static boolean isSerialization(String frame) {
        if (Frames.stripLine(frame).endsWith(".<init>")) return false;
        return Frames.startsWithAny(frame, SERIALIZERS);
    }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> hs = ev.table("cpu-hotspots");
        if (hs.isEmpty()) return notAssessed("no table cpu-hotspots (cpu profile)");
        Table t = hs.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            String f = t.text(i, "frame");
            if (f == null || !isSerialization(f)) continue;
            if (top < 0 || t.number(i, "totalShare") > t.number(top, "totalShare")) top = i;
        }
        // The table's share counts only with enough samples behind it (Evidence.MIN_HOTSPOT_SAMPLES).
        long tableSamples = ev.hotspotSamples();
        if (!ev.hasCpuProfile() && tableSamples < Evidence.MIN_HOTSPOT_SAMPLES) {
            return finding(Severity.OK).evidence("tables/cpu-hotspots").number(Long.toString(tableSamples), "tables/cpu-hotspots")
                    .summary("only " + tableSamples + " CPU sample" + (tableSamples == 1 ? "" : "s") + ": too few to weigh serialization.").build();
        }
        // The whole-stack share from the profile: nested serializer frames count once per sample.
        double profiled = top < 0 ? 0 : finite(ev.cpuShare(SerializationCpuRule::isSerialization));
        double tableShare = top < 0 || tableSamples < Evidence.MIN_HOTSPOT_SAMPLES ? 0 : t.number(top, "totalShare");
        double share = top < 0 ? 0 : Math.max(tableShare, profiled);
        String shareRef = top < 0 ? "tables/cpu-hotspots" : profiled >= tableShare ? ev.cpuRef() : "tables/cpu-hotspots#" + top;
        Finding.Builder b = finding(Severity.OK).evidence("tables/cpu-hotspots").number(Fmt.pct(share), shareRef);
        if (!(share >= SHARE_WARN)) {
            return b.summary("serialization frames in " + Fmt.pct(share) + " of CPU samples"
                    + (top < 0 ? "" : " (top " + t.text(top, "frame") + ")") + ".").build();
        }
        String frame = t.text(top, "frame");
        // Who parses or writes: the application method above the serializer, when most of its samples have one.
        String app = applicationCaller(ev);
        boolean reading = app != null && parses(ev, app);
        boolean copy = app != null && deepCopy(ev, app);
        String source = reading && !copy ? sourceCall(ev, app) : null;
        double[] unsent = app == null || reading || copy ? null : notTheResponse(ev, app);
        DroppedLogs dropped = unsent == null ? null : DroppedLogs.near(ev, app).orElse(null);
        if (dropped != null) b.evidence("tables/discarded-logs").number(Fmt.num(dropped.perRequest), dropped.ref);
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).culprit(app != null ? app : frame)
                .evidence("tables/cpu-hotspots#" + top)
                .summary(frame + " is on the stack in " + Fmt.pct(share) + " of CPU samples ("
                        + Fmt.pct(t.number(top, "selfShare")) + " self)"
                        + (app == null ? "" : copy ? ", in " + app + ", which copies objects by writing them with"
                        + " ObjectOutputStream and reading them back with ObjectInputStream" : (reading ? ", parsing for " : ", serializing for ") + app)
                        + (source == null ? "" : ", what its " + source + " returns")
                        + (unsent == null ? "" : "; the application serializes it itself (" + Fmt.pct(unsent[0]) + " of CPU samples,"
                        + " the response's converter " + Fmt.pct(unsent[1]) + ")" + (dropped != null
                        ? ", and " + dropped.clause() + ": the text is built for log messages that are never written"
                        : ": a body written by hand, or a String built for something else, such as a log argument evaluated"
                        + " although its level is off")) + ".")
                .number(Fmt.pct(t.number(top, "selfShare")), "tables/cpu-hotspots#" + top)
                .explanation("Serialization cost grows with payload size and object-graph depth; large responses,"
                        + " repeated mapping of the same data, or reflection-heavy settings make it dominate CPU.")
                .fix(copy ? "A deep copy through Java serialization writes and parses the whole object graph, field by"
                        + " field through reflection, on every call: share the data read-only instead (immutable objects,"
                        + " unmodifiable views), or copy only what the request changes, with copy constructors or a"
                        + " generated mapper (MapStruct)."
                        : reading ? "The request parses a large payload each time: parse it once and keep the parsed form (cache it,"
                        + " refreshed when the data changes), read only the part the request needs (smaller keys or documents,"
                        + " a streaming JsonParser), or bind it to types with only the fields used."
                        : dropped != null ? "Build the message only when its level is on: pass a Supplier (java.util.logging:"
                        + " logger.fine(() -> ...); SLF4J 2: logger.atDebug().addArgument(() -> ...)) or guard the call with"
                        + " " + dropped.guard() + ". Log a short"
                        + " identifier rather than the whole object if the message is wanted at all."
                        : unsent != null ? "See where " + app + "'s serialized result goes. A log argument is evaluated even when its"
                        + " level is off: pass a Supplier (logger.atDebug().addArgument(() -> …)) or guard with isDebugEnabled(); an"
                        + " audit or cache copy can be made once per change, or off the request path. If it is the response, send less"
                        + " (pagination, projections), cache the serialized form of data that does not change, and reuse one mapper."
                        : "Send less (pagination, projections), cache serialized forms of hot immutable data, reuse"
                        + " mappers/writers, prefer streaming or afterburner/blackbird-style accessors.")
                .confirm(ev.confirm("profiler start --event cpu") + ", then \"profiler stop --format collapsed\"")
                .explains("cpu-saturation").explains("tail-latency")
                .build();
    }

    /** The application frame nearest above the first serializer frame in most serialization samples; null without. */
    private static String applicationCaller(Evidence ev) {
        Optional<io.culprit.diagnosis.CpuProfile> p = ev.cpuProfileIfAny();
        if (p.isEmpty()) return null;
        io.culprit.diagnosis.CpuProfile mine = p.get().only(st -> java.util.Arrays.stream(st).anyMatch(SerializationCpuRule::isSerialization));
        java.util.Map.Entry<String, Long> top = mine.sumBy(st -> Frames.applicationAbove(st, SerializationCpuRule::isSerialization))
                .entrySet().stream().max(java.util.Map.Entry.comparingByValue()).orElse(null);
        return top != null && top.getValue() * 2 >= mine.samples() ? top.getKey() : null;
    }

    /** Whether the serializer frames under {@code app} mostly read (parse, deserialize) rather than write. */
    private static boolean parses(Evidence ev, String app) {
        io.culprit.diagnosis.CpuProfile p = ev.cpuProfileIfAny().orElseThrow();
        long read = p.only(st -> Frames.hasMethod(st, app) && java.util.Arrays.stream(st).anyMatch(f -> isSerialization(f) && reads(f))).samples();
        long all = p.only(st -> Frames.hasMethod(st, app) && java.util.Arrays.stream(st).anyMatch(SerializationCpuRule::isSerialization)).samples();
        return all > 0 && read * 2 >= all;
    }

    /**
     * Whether {@code app} both writes with ObjectOutputStream and reads with ObjectInputStream, each
     * in a fifth of its serialization samples: a deep copy (SerializationUtils.clone and its kin).
     */
    private static boolean deepCopy(Evidence ev, String app) {
        io.culprit.diagnosis.CpuProfile mine = ev.cpuProfileIfAny().orElseThrow()
                .only(st -> Frames.hasMethod(st, app) && java.util.Arrays.stream(st).anyMatch(SerializationCpuRule::isSerialization));
        long all = mine.samples();
        long out = mine.only(st -> Frames.mentions(java.util.Arrays.asList(st), "java.io.ObjectOutputStream")).samples();
        long in = mine.only(st -> Frames.mentions(java.util.Arrays.asList(st), "java.io.ObjectInputStream")).samples();
        return all > 0 && out * 5 >= all && in * 5 >= all;
    }

    private static boolean reads(String frame) {
        return frame.contains("Deserializer") || frame.contains(".deser.") || frame.contains("readValue") || frame.contains("readTree")
                || frame.contains("Parser") || frame.contains("fromJson") || frame.contains("ObjectInputStream") || frame.contains("Unmarshal");
    }

    /** "redis GET (1,019 calls)" when the method makes one dependency call per request at most a few targets: what it parses. */
    private static String sourceCall(Evidence ev, String method) {
        Optional<Table> calls = ev.rows("calls");
        if (calls.isEmpty()) return null;
        Table t = calls.get();
        for (int i = 0; i < t.rows().size(); i++) {
            if (!Frames.stripLine(Evidence.text(t, i, "caller")).equals(method)) continue;
            return t.text(i, "kind") + " " + SlowCallsRule.quote(t.text(i, "target")) + " (" + Fmt.num(t.number(i, "count")) + " calls)";
        }
        return null;
    }
}
