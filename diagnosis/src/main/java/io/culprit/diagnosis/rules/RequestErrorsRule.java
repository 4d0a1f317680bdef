package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.ColumnStats;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.diagnosis.internal.LoadJson;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Requests that failed (errors, timeouts, 5xx) under the load. An effect: a pool timing out, a
 * lock, an open circuit breaker; the escaped exceptions, when recorded, name where it fails.
 */
public final class RequestErrorsRule implements Rule {
    /** One failed request in a hundred is an incident for most APIs. */
    static final double ERROR_SHARE_WARN = 0.01;
    /** One in twenty: the service is failing, not slow. */
    static final double ERROR_SHARE_CRITICAL = 0.05;

    @Override public String id() { return "request-errors"; }
    @Override public String title() { return "Requests fail under load"; }
    @Override public boolean symptom() { return true; }

    /** The share of the run's requests that failed; NaN without the requests series. */
    static double failedShare(Evidence ev) {
        Optional<ColumnStats> errors = ev.stats("requests", "errors");
        Optional<ColumnStats> rps = ev.stats("requests", "rps");
        if (errors.isEmpty() || rps.isEmpty()) return Double.NaN;
        double total = total(ev, rps.get());
        return total > 0 ? errors.get().sum() / total : Double.NaN;
    }

    // The generator's own count when it wrote one: a rounded rate per window once summed to 11,451
    // requests of which 11,453 failed.
    private static double total(Evidence ev, ColumnStats rps) {
        double intervalS = ev.series("requests").orElseThrow().intervalMs() / 1000.0;
        double counted = LoadJson.completed(ev.caseFile().dir());
        return counted > 0 ? counted : rps.sum() * intervalS;
    }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<ColumnStats> errors = ev.stats("requests", "errors");
        Optional<ColumnStats> rps = ev.stats("requests", "rps");
        if (errors.isEmpty() || rps.isEmpty()) return notAssessed("needs series requests#errors and requests#rps");
        double total = total(ev, rps.get());
        double failed = errors.get().sum();
        double share = total > 0 ? failed / total : Double.NaN;
        Numbers n = new Numbers();
        String what = n.tag(Fmt.num(failed), "series/requests#errors") + " of " + n.tag(Fmt.num(total), "series/requests#rps")
                + " requests failed (" + n.tag(Fmt.pct(share), "series/requests#errors") + ")";
        Finding.Builder b = finding(Severity.OK).evidence("series/requests#errors");
        if (!(share >= ERROR_SHARE_WARN)) return b.summary(what + ".").numbers(n.refs()).build();
        double refused = LoadJson.clientErrors(ev.caseFile().dir());
        if (refused > 0 && (failed - refused) / total < ERROR_SHARE_WARN) {
            // The load asked for something the service rightly refuses: a property of the test, not of the service.
            return b.severity(Severity.INFO).summary(what + ", " + Fmt.num(refused) + " of them answered 4xx: the service refused"
                    + " the requests (check the URL and body), it did not fail under load.").numbers(n.refs()).build();
        }
        String site = escapedSite(ev);
        return b.severity(share >= ERROR_SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN).score(Math.min(1, share))
                .culprit(site)
                .summary(what + (site == null ? "" : "; top escaped exception at " + site) + ".")
                .numbers(n.refs())
                .explanation("Failures under load are usually timeouts or rejections from a saturated resource (a pool,"
                        + " a lock, a downstream) or a circuit breaker that opened; the findings chained to it say which.")
                .fix("Fix the saturated resource the chain names; check timeouts and breaker settings against the"
                        + " latency the service actually has.")
                .confirm(ev.confirm("exceptions -n 5"))
                .build();
    }

    private static String escapedSite(Evidence ev) {
        Optional<Table> ex = ev.rows("exceptions");
        if (ex.isEmpty()) return null;
        Table t = ex.get();
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!Boolean.FALSE.equals(t.rows().get(i).get("caught"))) continue;
            if (top < 0 || t.number(i, "count") > t.number(top, "count")) top = i;
        }
        return top < 0 ? null : t.text(top, "type") + " at " + t.text(top, "site");
    }
}
