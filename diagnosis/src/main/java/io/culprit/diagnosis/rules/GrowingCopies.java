package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Collections asked for by one application method that builds a text by copying it whole at every
 * step: {@code s = s + part} in a loop, or in an aggregator's {@code aggregate(old, new)}. n parts
 * of size b copy about n²·b/2 bytes; a blind Camel service's CSV export joined 1,900 lines of ~70
 * bytes that way: 141 MB allocated per request for a 137 KB response, 98 % of all allocation,
 * which culprit had read as the heap's sizing. Named from the allocation samples: the site's bytes
 * per request, far above the response they build, in the JDK's concatenation or copy frames.
 */
final class GrowingCopies {
    /** Half of all sampled allocation at the one site. */
    static final double SITE_SHARE = 0.5;
    /** At least this much per request: small copies are the ordinary cost of building strings. */
    static final double MB_PER_REQUEST = 10;
    /** And this many times the response's size, when the load recorded it: the bytes built are not the bytes sent. */
    static final double TIMES_RESPONSE = 50;
    /** The JDK frames that copy a whole string or array into a new one. */
    private static final String[] COPIES = {"java.lang.StringConcatHelper.", "java.lang.String.concat", "java.util.Arrays.copyOf",
        "java.lang.StringBuilder.<init>", "java.lang.StringBuffer.<init>", "java.lang.AbstractStringBuilder.<init>"};

    private GrowingCopies() { }

    static Optional<GcTrigger> read(Evidence ev, Numbers n, double kbPerRequest) {
        Table t = ev.rows("alloc-sites").orElse(null);
        if (t == null || t.rows().isEmpty() || !(kbPerRequest > 0)) return Optional.empty();
        int top = 0;
        for (int i = 1; i < t.rows().size(); i++) if (t.number(i, "share") > t.number(top, "share")) top = i;
        double share = t.number(top, "share");
        String site = t.text(top, "site");
        if (!(share >= SITE_SHARE) || site == null || !Frames.isApplication(site)) return Optional.empty();
        if (Evidence.stack(t, top, "stack").stream().noneMatch(f -> Frames.startsWithAny(f, COPIES))) return Optional.empty();
        double mb = share * kbPerRequest / 1024;
        double body = LoadJson.bodyBytesPerResponse(ev.caseFile().dir());
        double times = body > 0 ? mb * 1024 * 1024 / body : Double.NaN;
        if (!(mb >= MB_PER_REQUEST) || Double.isFinite(times) && times < TIMES_RESPONSE) return Optional.empty();
        String ref = "tables/alloc-sites#" + top;
        return Optional.of(new GcTrigger(site + " copies what it has built at every step: " + n.tag(Fmt.num(mb) + " MB", ref)
                + " allocated per request there (" + n.tag(Fmt.pct(share), ref) + " of sampled allocation"
                + (Double.isFinite(times) ? ", " + n.tag(Fmt.num(times) + "×", "load.json") + " the " + Fmt.kb(body) + " response" : "")
                + "), in the JDK's string concatenation and copies", site,
                "Append to one StringBuilder (or collect the parts and join them once: String.join, Collectors.joining)"
                        + " instead of concatenating onto the text built so far; in an aggregator (Camel's AggregationStrategy,"
                        + " a reduce) keep the builder in the aggregate and make the String once, at the end. A bigger heap"
                        + " only spaces the same collections out.",
                "Concatenating onto a growing text copies all of it each time: n parts cost about n² / 2 parts' worth of"
                        + " bytes, which the collector must clear; under load it collects continuously."));
    }
}
