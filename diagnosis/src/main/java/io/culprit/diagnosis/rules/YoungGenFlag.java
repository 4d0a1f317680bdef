package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import java.util.Optional;

/**
 * A young generation sized by flag (-Xmn, -XX:NewSize, -XX:MaxNewSize) that the collector fills
 * many times a second. G1 sizes its young generation itself, to meet its pause goal; pinned small
 * it collects every few milliseconds under load and promotes objects that would have died young.
 * A service outside the lab started with -Xmn16m on a 512 MB heap collected 85 times a second
 * (17 % of wall time paused; 9 a second and 2.4 % without the flag) and was told "-Xms equal to -Xmx".
 */
final class YoungGenFlag {
    /** Collections a second at which a young generation is too small for the allocation rate. */
    static final double PER_SECOND = 20;

    private YoungGenFlag() { }

    static Optional<GcTrigger> read(Evidence ev, String collector, Numbers n) {
        String flag = flag(ev.info().target().getOrDefault("jvmArgs", ""));
        double seconds = ev.observedSeconds();
        if (flag == null || !(seconds > 0)) return Optional.empty();
        double count = ev.column("gc", "pauseCount").map(v -> java.util.Arrays.stream(v).filter(Double::isFinite).sum()).orElse(Double.NaN);
        double perSecond = count / seconds;
        if (!(perSecond >= PER_SECOND)) return Optional.empty();
        boolean g1 = collector.startsWith("G1");
        return Optional.of(new GcTrigger(
                "the young generation is sized by " + flag + " and collected " + n.tag(Fmt.num(Math.round(perSecond)), "series/gc#pauseCount")
                        + " times a second",
                "the JVM's flags: " + flag,
                g1 ? "Remove " + flag + " (and -XX:NewSize, -XX:MaxNewSize): G1 sizes the young generation itself, between"
                        + " 5 and 60 % of the heap, to meet its pause goal; pinned, it cannot grow with the allocation rate."
                        + " If pauses are the concern, set -XX:MaxGCPauseMillis instead."
                        : "Give the young generation room for what a second of requests allocates (" + flag + " raised several"
                        + " times, or -XX:NewRatio), so that request objects die in it instead of being promoted.",
                "A young generation too small for the allocation rate is collected every few milliseconds, and objects"
                        + " still in use by requests in flight survive each collection and are copied, then promoted to"
                        + " the old generation, which fills with them and needs collecting in turn."
                        + (g1 ? " G1 would size the young generation itself; the flag pins it." : "")));
    }

    /** -Xmn…, -XX:NewSize=… or -XX:MaxNewSize=… (the last given), or null. */
    static String flag(String jvmArgs) {
        String found = null;
        for (String a : jvmArgs.split("\\s+")) {
            if (a.startsWith("-Xmn") || a.startsWith("-XX:NewSize=") || a.startsWith("-XX:MaxNewSize=")) found = a;
        }
        return found;
    }
}
