package io.culprit.diagnosis.rules;

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

/**
 * Beans created per request: prototype-scoped beans resolved in a loop or per call run
 * the container's whole creation path (reflection, post-processors, proxies) every time
 * (CASES.md #4: a prototype Redis client created ~200 times per request).
 */
public final class PrototypeBeansRule implements Rule {
    /** A handful per request can be design (a command object); five or more is a loop calling getBean. */
    static final double PER_REQUEST_WARN = 5;
    /** Fifty per request: creation, not the work, dominates. */
    static final double PER_REQUEST_CRITICAL = 50;
    /** After warm-up a tenth of CPU in the container's bean creation can only be per-request creation. */
    static final double CREATE_SHARE_WARN = 0.1;

    @Override public String id() { return "prototype-beans"; }
    @Override public String title() { return "Beans created on every request (prototype scope)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("beans");
        if (table.isEmpty()) return fromProfile(ev);
        Table t = table.get();
        int top = -1;
        double total = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double pr = ev.perRequest(t, i);
            String scope = Evidence.text(t, i, "scope").toLowerCase(Locale.ROOT);
            // Request and session scopes are created once per request or session by design.
            if (!Double.isFinite(pr) || scope.equals("request") || scope.equals("session")) continue;
            total += pr;
            if (top < 0 || pr > ev.perRequest(t, top)) top = i;
        }
        Finding.Builder b = finding(Severity.OK).evidence("tables/beans");
        Numbers n = new Numbers();
        if (top < 0 || total < PER_REQUEST_WARN) {
            return b.summary("bean creations per request: " + n.tag(Fmt.num(total), "tables/beans") + " ("
                    + n.tag(String.valueOf(t.rows().size()), "tables/beans") + " bean types seen).").numbers(n.refs()).build();
        }
        double cpu = ev.cpuShare(PrototypeBeansRule::isCreation);
        String type = t.text(top, "type");
        String scope = Evidence.text(t, top, "scope");
        Severity sev = total >= PER_REQUEST_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        b.severity(sev).score(Double.isFinite(cpu) ? cpu : 0.1).culprit(type).evidence("tables/beans#" + top)
                .summary(n.tag(Fmt.num(ev.perRequest(t, top)), "tables/beans#" + top) + " " + (scope.isEmpty() ? "" : scope + " ")
                        + "beans '" + t.text(top, "bean") + "' (" + type + ") created per request" + (Double.isFinite(cpu) && cpu > 0
                        ? ", bean creation in " + n.tag(Fmt.pct(cpu), ev.cpuRef()) + " of CPU samples" : "") + ".")
                .numbers(n.refs())
                .explanation("Each getBean on a prototype runs the container's full creation path: constructor"
                        + " resolution, injection, post-processors, proxies. Resolved inside a loop or per call, that"
                        + " cost multiplies by the call count.")
                .fix("Make the bean a singleton (it is usually thread-safe) or resolve it once per request and pass"
                        + " it down; never call getBean / ObjectProvider.getObject in a loop.")
                .confirm(ev.confirm("monitor org.springframework.beans.factory.support.AbstractBeanFactory doGetBean -c 5"))
                .explains("tail-latency");
        if (cpu >= CpuSaturationRule.EXPLAINS_SHARE) b.explains("cpu-saturation").explains("thread-oversubscription");
        return b.build();
    }

    /**
     * A container's bean creation ({@code AbstractAutowireCapableBeanFactory.createBean},
     * {@code doCreateBean}, {@code createBeanInstance}; Micronaut's {@code createBean}): by the method's
     * whole name, as libraries name other work alike (Jackson's {@code createBeanDeserializer},
     * Hibernate Validator's {@code createBeanMetaData}, which read as "bean creation in 66 % of CPU
     * samples" on a Dropwizard service with no container beans at all).
     */
    static boolean isCreation(String frame) {
        String m = Frames.stripLine(frame);
        String method = m.substring(m.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        return method.equals("createbean") || method.equals("docreatebean") || method.equals("createbeaninstance");
    }

    // Without a bean probe the CPU profile still shows creation on the request path, not which bean.
    private Finding fromProfile(Evidence ev) {
        double cpu = ev.cpuShare(PrototypeBeansRule::isCreation);
        if (!Double.isFinite(cpu)) return notAssessed("no table beans and no cpu profile");
        Finding.Builder b = finding(cpu >= CREATE_SHARE_WARN ? Severity.WARN : Severity.OK).evidence("tables/cpu-hotspots")
                .number(Fmt.pct(cpu), ev.cpuRef());
        if (cpu < CREATE_SHARE_WARN) return b.summary("bean creation in " + Fmt.pct(cpu) + " of CPU samples.").build();
        String caller = ev.cpuCaller(PrototypeBeansRule::isCreation);
        return b.score(cpu).culprit(caller)
                .summary("bean creation in " + Fmt.pct(cpu) + " of CPU samples after warm-up: beans are created on the request"
                        + " path" + (caller == null ? "" : ", most of them asked for by " + caller) + " (no bean probe, so which bean is unknown).")
                .explanation("Only prototype (or similar) beans are created after startup; this much CPU in creation means"
                        + " they are resolved per request or in a loop.")
                .fix("Find the bean with the confirm command, then make it a singleton or resolve it once.")
                .confirm(ev.confirm("monitor org.springframework.beans.factory.support.AbstractBeanFactory doGetBean -c 5"))
                .explains("cpu-saturation").explains("thread-oversubscription").explains("tail-latency")
                .build();
    }
}
