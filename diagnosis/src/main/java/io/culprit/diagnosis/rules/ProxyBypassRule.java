package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A method whose Spring annotation never applied: a dependency call ran under a {@code @Cacheable}
 * (or {@code @Async}) method with no interceptor of Spring's below it on the stack (the agent's
 * {@code proxyBypass} column of {@code tables/calls}). Called on {@code this} from its own class,
 * the call never passes the bean's proxy; the cache is never asked, and the query it was meant to
 * spare runs on every request. A service outside the lab whose {@code @Cacheable} price summary was
 * called so read "slow-calls → pool-starvation" and "create an index": true, but the service's bug
 * was the self-call (304 req/s against 6,221 through the proxy).
 */
public final class ProxyBypassRule implements Rule {
    /** The calls under the bypassed method in this share of request time are what the annotation was meant to spare. */
    static final double SHARE_WARN = 0.10;
    static final double SHARE_CRITICAL = 0.40;

    @Override public String id() { return "proxy-bypass"; }
    @Override public String title() { return "An annotated method runs without its Spring proxy (@Cacheable on this)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> calls = ev.table("calls");
        if (calls.isEmpty()) return notAssessed("no table calls (framework probes off)");
        Table t = calls.get();
        if (!t.columns().contains("proxyBypass") && t.rows().stream().noneMatch(r -> r.containsKey("proxyBypass"))) {
            return notAssessed("the calls table does not say which calls ran past a proxy (recorded before culprit read it)");
        }
        // The bypassed method whose calls hold the most request time (a cache or async one before a
        // transactional one, which costs little), with every call under it.
        Map<String, Double> shares = new LinkedHashMap<>();
        for (int i = 0; i < t.rows().size(); i++) {
            String b = Evidence.text(t, i, "proxyBypass");
            double s = t.number(i, "shareOfRequestTime");
            if (!b.isEmpty()) shares.merge(b, Double.isFinite(s) ? s : 0, Double::sum);
        }
        String bypass = shares.entrySet().stream()
                .max(Comparator.comparing((Map.Entry<String, Double> e) -> !e.getKey().startsWith("@Transactional"))
                        .thenComparing(Map.Entry::getValue))
                .map(Map.Entry::getKey).orElse(null);
        if (bypass == null) {
            return finding(Severity.OK).evidence("tables/calls")
                    .summary("every dependency call under a @Cacheable, @Async or @Transactional method ran through its proxy"
                            + " (or none ran under one).").build();
        }
        double share = shares.get(bypass), perRequest = 0;
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            if (!bypass.equals(Evidence.text(t, i, "proxyBypass"))) continue;
            if (Double.isFinite(t.number(i, "perRequest"))) perRequest += t.number(i, "perRequest");
            if (top < 0 || t.number(i, "shareOfRequestTime") > t.number(top, "shareOfRequestTime")) top = i;
        }
        Numbers n = new Numbers();
        Bypass b = Bypass.parse(bypass);
        String row = "tables/calls#" + top;
        boolean cached = b.annotation.equals("@Cacheable"), async = b.annotation.equals("@Async");
        Severity sev = !(cached || async) ? Severity.INFO
                : share >= SHARE_CRITICAL ? Severity.CRITICAL : share >= SHARE_WARN ? Severity.WARN : Severity.INFO;
        String how = b.onThis() ? "was called on this from " + b.caller + ", inside its own class, past the bean's proxy"
                : b.caller == null ? "ran without the proxy's interceptor" : "was called from " + b.caller + " without the proxy's interceptor";
        String what = cached ? "the cache was never asked" : async ? "it ran on the caller's thread, which waited for it"
                : "no transaction was begun for it";
        Finding.Builder f = finding(sev).score(share).evidence(row).culprit(b.method)
                .summary(Frames.stripLine(b.method) + " is " + b.annotation + ", but " + how + ": " + what + "; the "
                        + t.text(top, "kind") + " " + SlowCallsRule.quote(t.text(top, "target")) + " under it runs "
                        + n.tag(Fmt.num(perRequest), row) + " time(s) per request, " + n.tag(Fmt.pct(share), "tables/calls")
                        + " of request time.")
                .numbers(n.refs())
                .explanation("Spring applies " + b.annotation + " with a proxy around the bean: only a call that comes in through"
                        + " the proxy passes its interceptor. A call on this from the bean's own methods, a private or final"
                        + " method, or a bean of a context without " + (cached ? "@EnableCaching" : async ? "@EnableAsync"
                        : "@EnableTransactionManagement") + " runs the method as plain Java. Spring logs nothing.")
                .fix(cached ? "Call the cached method through the bean's proxy: move it to another bean (or inject the bean into"
                        + " itself, @Lazy, and call it there); make it public and not final; enable caching (@EnableCaching) if it"
                        + " is not. The statement then runs once per key until evicted."
                        : async ? "Call the @Async method through the bean's proxy (from another bean), make it public and not final,"
                        + " and enable it (@EnableAsync) if it is not; the request then returns without waiting for it."
                        : "Call the @Transactional method through the bean's proxy (from another bean), or open the transaction"
                        + " in the caller.")
                .confirm(ev.confirm("stack " + Frames.classAndMethod(b.method) + " -n 3") + " (no "
                        + (cached ? "CacheInterceptor" : async ? "AsyncExecutionInterceptor" : "TransactionInterceptor")
                        + " frame below it)");
        if (sev == Severity.WARN || sev == Severity.CRITICAL) {
            f.explains("slow-calls").explains("chatty-calls").explains("pool-starvation").explains("pool-size")
                    .explains("tail-latency").explains("connection-held");
        }
        return f.build();
    }

    /** The agent's "@Cacheable a.B.m:12 called from a.B.n:30". */
    static final class Bypass {
        final String annotation;
        final String method;
        final String caller;

        private Bypass(String annotation, String method, String caller) {
            this.annotation = annotation;
            this.method = method;
            this.caller = caller;
        }

        static Bypass parse(String s) {
            String[] parts = s.split(" called from ", 2);
            int space = parts[0].indexOf(' ');
            return new Bypass(space < 0 ? parts[0] : parts[0].substring(0, space), space < 0 ? "?" : parts[0].substring(space + 1),
                    parts.length > 1 ? parts[1] : null);
        }

        /** The caller is a method of the same class (or one nested in it). */
        boolean onThis() {
            return caller != null && Frames.topLevelClass(caller).equals(Frames.topLevelClass(method));
        }
    }
}
