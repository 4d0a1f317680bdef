package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;
import java.util.Map;
import java.util.Optional;

/**
 * Collections kept busy by objects with a {@code finalize()} method: JFR's "Final reference"
 * count per collection ({@code gc-references}). Such an object survives the collection that finds
 * it unreachable, with everything it references, until the one Finalizer thread has run it; made
 * per request, it turns short-lived garbage into survivors the collector copies and promotes. A
 * service outside the lab whose compressor kept a finalize() as a safety net paused 17 % of the
 * time and was told to size its heap; dropping the finalizer took the pauses to 1.4 %. The
 * finalize method is named from the Finalizer thread's CPU samples when the profile has any.
 */
final class Finalizers {
    /** Half a finalizable object per request: the requests make them. */
    static final double PER_REQUEST = 0.5;
    /** Fewer than this in a run is the JDK's and the libraries' own few. */
    static final double MIN_COUNT = 1000;
    private static final String RUN_FINALIZER = "java.lang.ref.Finalizer.runFinalizer";

    private Finalizers() {}

    /** The trigger when the requests make finalizable objects; empty otherwise or without the table. */
    static Optional<GcTrigger> read(Evidence ev, Numbers n) {
        Optional<Table> refs = ev.rows("gc-references");
        if (refs.isEmpty()) return Optional.empty();
        Table t = refs.get();
        int row = -1;
        for (int i = 0; i < t.rows().size(); i++) if (String.valueOf(t.text(i, "type")).startsWith("Final")) row = i;
        double requests = ev.requestCount();
        if (row < 0 || !(requests > 0)) return Optional.empty();
        double count = t.number(row, "count");
        if (!(count >= MIN_COUNT) || count / requests < PER_REQUEST) return Optional.empty();
        String ref = "tables/gc-references#" + row;
        String method = finalizeMethod(ev);
        String summary = "collections found " + n.tag(Fmt.num(count), ref) + " unreachable objects with a finalize() method (JFR's"
                + " final references), " + n.tag(Fmt.num(count / requests), ref) + " per request" + (method == null ? "" : ", finalized by " + method)
                + ": each survives the collection that finds it, with all it references, until the Finalizer thread has run it";
        String owner = method == null ? null : method.endsWith(".finalize") ? method.substring(0, method.lastIndexOf('.')) : method;
        return Optional.of(new GcTrigger(summary, method == null ? "objects with finalize() made per request" : method,
                "Remove finalize() from " + (owner == null ? "the class made per request (jcmd <pid> GC.finalizer_info lists"
                        + " the finalizable classes by count)" : owner) + ": release what it holds explicitly (close() in"
                        + " try-with-resources) and, if a safety net must stay, register a java.lang.ref.Cleaner action that does"
                        + " not reference the object. A bigger heap only spaces the same collections out.",
                "An object whose class overrides finalize() is registered when it is allocated and, once unreachable, is"
                        + " kept alive through the collection that finds it, with everything it references, until the single"
                        + " Finalizer thread has run its finalize(); only a later collection frees it. Made per request, short-lived"
                        + " objects become survivors the collector copies and promotes."));
    }

    /** The finalize method the Finalizer thread spent most samples in; null without a profile or samples. */
    static String finalizeMethod(Evidence ev) {
        Optional<CpuProfile> p = ev.cpuProfileIfAny();
        if (p.isEmpty()) return null;
        Map<String, Long> by = p.get().sumBy(Finalizers::below);
        return by.entrySet().stream().filter(e -> e.getKey() != null).max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    /** The first frame outside the JDK below the Finalizer's run, root first; null when the stack is not the Finalizer's. */
    private static String below(String[] st) {
        String f = Frames.firstBelow(st, g -> g.startsWith(RUN_FINALIZER), g -> !Frames.isJdk(g));
        return f == null ? null : Frames.stripLine(f);
    }
}
