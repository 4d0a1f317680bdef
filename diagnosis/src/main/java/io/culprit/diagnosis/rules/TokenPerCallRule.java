package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.Stats.finite;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An access token fetched for every call it authorizes: a remote call whose target names a token
 * ({@code POST …/oauth/token}, {@code auth.Tokens/IssueToken}) made about as often as another
 * remote call of the service, once or more per request. A token is meant to be kept until it
 * expires; one per call is a cache that never keeps (an expiry read in the wrong unit, OAuth's
 * {@code expires_in} being seconds, or none kept at all), and every call then pays the token
 * service's round trip and queues on its capacity. A gRPC {@code CallCredentials}, a Feign
 * {@code RequestInterceptor}, a WebClient filter all run per call: the cache must live in them. A
 * blind gRPC service (session 48) issued a token per geofence call through its CallCredentials:
 * "slow-calls: partner.Geofence/Check", whose time held the token call made inside it.
 */
public final class TokenPerCallRule implements Rule {
    /** The token calls run about as often as the calls they authorize: within this ratio either way. */
    static final double SAME_COUNT = 0.8;
    /** At least once per two requests: on the request path. */
    static final double PER_REQUEST_MIN = 0.5;
    static final double SHARE_WARN = 0.1, SHARE_CRITICAL = 0.3;

    @Override public String id() { return "token-per-call"; }
    @Override public String title() { return "An access token fetched for every call it authorizes"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (the framework probes did not run)");
        Table t = calls.get();
        int token = -1, authorized = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!remote(t, i) || !namesToken(Evidence.text(t, i, "target")) || SlowCallsRule.background(t, i)) continue;
            if (!(ev.perRequest(t, i) >= PER_REQUEST_MIN)) continue;
            int other = sameCount(t, i);
            if (other >= 0 && (token < 0 || t.number(i, "totalMs") > t.number(token, "totalMs"))) {
                token = i;
                authorized = other;
            }
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/calls");
        if (token < 0) return b.summary("no token call ran as often as the calls it would authorize.").build();
        Numbers n = new Numbers();
        String ref = "tables/calls#" + token;
        double share = finite(t.number(token, "shareOfRequestTime"));
        double count = t.number(token, "count");
        Severity sev = share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.INFO;
        String caller = Evidence.text(t, token, "caller");
        return b.severity(sev).score(share).culprit(caller.isEmpty() || caller.startsWith("(") ? t.text(token, "target") : caller)
                .summary("a token is fetched for about every call it authorizes: " + t.text(token, "kind") + " "
                        + SlowCallsRule.quote(t.text(token, "target")) + " ran " + n.tag(Fmt.num(count), ref) + " times ("
                        + n.tag(Fmt.num(ev.perRequest(t, token)), ref) + " per request, " + n.tag(Fmt.ms(t.number(token, "totalMs") / count), ref)
                        + " each, " + n.tag(Fmt.pct(share), ref) + " of request time), beside " + t.text(authorized, "kind") + " "
                        + SlowCallsRule.quote(t.text(authorized, "target")) + "'s " + n.tag(Fmt.num(t.number(authorized, "count")),
                        "tables/calls#" + authorized) + (caller.isEmpty() ? "" : "; fetched at " + caller) + ".")
                .numbers(n.refs())
                .explanation("An access token is good for many calls until it expires (minutes to hours). Fetched for every"
                        + " call, each call pays the token service's round trip first, and the token service, often slow by"
                        + " design (it signs), caps the service's throughput. A call made inside the call it authorizes (a"
                        + " credentials object or interceptor) also stretches that call's own time.")
                .fix("Keep the token and reuse it until shortly before it expires (expires_in is in seconds: compare it with"
                        + " the clock in the same unit), refreshing it ahead of time, one thread at a time, while the others use the"
                        + " current one (a volatile field or AtomicReference). The cache must live where the calls pass: a gRPC"
                        + " CallCredentials' applyRequestMetadata, a Feign RequestInterceptor, a WebClient filter run for every call.")
                .confirm(ev.confirm("calls") + " (the token call's count against the others')"
                        + (Frames.classAndMethod(caller) == null ? "" : "; " + ev.confirm("trace " + Frames.classAndMethod(caller))))
                .explains("slow-calls").explains("capped-calls").explains("tail-latency").explains("sequential-calls")
                .build();
    }

    private static boolean remote(Table t, int i) {
        return SequentialCallsRule.REMOTE_KINDS.contains(t.text(i, "kind"));
    }

    /**
     * Words by which token and sign-in services name themselves: a token ({@code /oauth/token},
     * {@code IssueToken}, OIDC's {@code /connect/token}), OAuth, an authentication or login
     * endpoint, credentials, a JWT, AWS STS's AssumeRole. "auth" only as a whole path or method
     * segment: {@code /authors} is not one.
     */
    private static final Pattern TOKEN_WORDS = Pattern.compile(
            "token|oauth|authenticat|credential|jwt|assumerole|login|signin|sign-in|(^|[/.])auth([/?.]|$)");

    /** A target naming a token service: its path or method ({@code /oauth/token}, {@code IssueToken}, {@code /auth/login}). */
    static boolean namesToken(String target) {
        String path = target.contains("://") ? target.substring(target.indexOf("://") + 3) : target;
        int slash = path.indexOf('/');
        // The host is not the endpoint: auth.example.com serves more than its token calls.
        if (target.contains("://") && slash >= 0) path = path.substring(slash);
        return TOKEN_WORDS.matcher(path.toLowerCase(Locale.ROOT)).find();
    }

    /** The remote row, not a token call, with about {@code row}'s count; -1 when none. */
    private static int sameCount(Table t, int row) {
        double c = t.number(row, "count");
        int best = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (i == row || !remote(t, i) || namesToken(Evidence.text(t, i, "target"))) continue;
            double o = t.number(i, "count");
            if (!(o > 0) || Math.min(o, c) < SAME_COUNT * Math.max(o, c)) continue;
            if (best < 0 || Math.abs(o - c) < Math.abs(t.number(best, "count") - c)) best = i;
        }
        return best;
    }
}
