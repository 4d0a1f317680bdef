package io.culprit.diagnosis.rules;

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
 * repeated-construction weighs instead.
 */
public final class SerializationCpuRule implements Rule {
    /** A fifth of CPU in (de)serialization: payloads too large or mapped too often. */
    static final double SHARE_WARN = 0.2;
    static final double SHARE_CRITICAL = 0.4;
    private static final String[] SERIALIZERS = {
        "com.fasterxml.jackson.", "com.google.gson.", "java.io.ObjectOutputStream", "java.io.ObjectInputStream",
        "javax.xml.bind.", "jakarta.xml.bind.", "com.sun.xml.", "com.google.protobuf.", "org.yaml.snakeyaml.",
        "kotlinx.serialization.", "com.esotericsoftware.kryo.", "org.apache.avro.", "jakarta.json.", "javax.json.",
        "com.alibaba.fastjson", "org.json."
    };

    @Override public String id() { return "serialization-cpu"; }
    @Override public String title() { return "CPU spent serializing and deserializing"; }

    static boolean isSerialization(String frame) {
        if (Frames.stripLine(frame).endsWith(".<init>")) return false;
        for (String p : SERIALIZERS) if (frame.startsWith(p)) return true;
        return false;
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
        double profiled = top < 0 ? 0 : zero(ev.cpuShare(SerializationCpuRule::isSerialization));
        double tableShare = top < 0 || tableSamples < Evidence.MIN_HOTSPOT_SAMPLES ? 0 : t.number(top, "totalShare");
        double share = top < 0 ? 0 : Math.max(tableShare, profiled);
        String shareRef = top < 0 ? "tables/cpu-hotspots" : profiled >= tableShare ? ev.cpuRef() : "tables/cpu-hotspots#" + top;
        Finding.Builder b = finding(Severity.OK).evidence("tables/cpu-hotspots").number(Fmt.pct(share), shareRef);
        if (!(share >= SHARE_WARN)) {
            return b.summary("serialization frames in " + Fmt.pct(share) + " of CPU samples"
                    + (top < 0 ? "" : " (top " + t.text(top, "frame") + ")") + ".").build();
        }
        String frame = t.text(top, "frame");
        return b.severity(share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(share).culprit(frame)
                .evidence("tables/cpu-hotspots#" + top)
                .summary(frame + " is on the stack in " + Fmt.pct(share) + " of CPU samples ("
                        + Fmt.pct(t.number(top, "selfShare")) + " self).")
                .number(Fmt.pct(t.number(top, "selfShare")), "tables/cpu-hotspots#" + top)
                .explanation("Serialization cost grows with payload size and object-graph depth; large responses,"
                        + " repeated mapping of the same data, or reflection-heavy settings make it dominate CPU.")
                .fix("Send less (pagination, projections), cache serialized forms of hot immutable data, reuse"
                        + " mappers/writers, prefer streaming or afterburner/blackbird-style accessors.")
                .confirm(ev.confirm("profiler start --event cpu") + ", then \"profiler stop --format collapsed\"")
                .explains("cpu-saturation").explains("tail-latency")
                .build();
    }

    private static double zero(double v) {
        return Double.isFinite(v) ? v : 0;
    }
}
