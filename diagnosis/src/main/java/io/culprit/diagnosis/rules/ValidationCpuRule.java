package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.util.Map;
import java.util.Optional;

/**
 * Bean Validation on the request path: CPU samples in a validator (Hibernate Validator, Apache
 * BVal), named by how it was asked: Spring's method validation on a {@code @Validated} bean (its
 * parameters or, with {@code @Valid} on the return type, its return value), a controller's
 * {@code @Valid} argument, or the application's own {@code validate} call. A cascade ({@code @Valid}
 * on a collection or a nested bean) validates every element. A booking service outside the lab
 * returned its cached seat map from a {@code @Validated} bean with {@code public @Valid SeatMap}:
 * 800 seats validated per call for a page of 200, 62 % of the CPU, and every rule read "no root
 * cause" (the validator is a library, so cpu-hotspot saw no application method computing).
 */
public final class ValidationCpuRule implements Rule {
    static final double SHARE_WARN = 0.15;
    static final double SHARE_CRITICAL = 0.30;
    private static final String[] VALIDATORS = {"org.hibernate.validator.", "org.apache.bval."};
    private static final String METHOD_VALIDATION = "org.springframework.validation.beanvalidation.MethodValidationInterceptor.";

    @Override public String id() { return "validation-cpu"; }
    @Override public String title() { return "Bean Validation on every call (a @Validated bean, @Valid cascades)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty()) return notAssessed("no cpu profile (profiles/cpu.collapsed)");
        CpuProfile p = profile.get();
        if (p.samples() == 0) return notAssessed("no CPU samples");
        // Building a validator factory is construction, which repeated-construction and hot-path-classloading weigh.
        CpuProfile validating = p.only(st -> Frames.anyStartsWith(st, VALIDATORS) && !building(st));
        double share = (double) validating.samples() / p.samples();
        Numbers n = new Numbers();
        String ref = ev.cpuRef();
        if (share < SHARE_WARN) {
            return finding(Severity.OK).evidence(ref).number(Fmt.pct(share), ref)
                    .summary("Bean Validation in " + Fmt.pct(share) + " of CPU samples.").build();
        }
        Map.Entry<String, Long> target = CpuHotspotRule.top(validating.sumBy(ValidationCpuRule::validated));
        double returns = (double) validating.only(st -> Frames.anyStartsWith(st, "org.hibernate.validator.internal.engine.ValidatorImpl.validateReturnValue")).samples()
                / validating.samples();
        double cascades = (double) validating.only(st -> Frames.anyStartsWith(st, "org.hibernate.validator.internal.engine.ValidatorImpl.validateCascaded")).samples()
                / validating.samples();
        boolean method = validating.only(st -> Frames.anyStartsWith(st, METHOD_VALIDATION)).samples() * 2 >= validating.samples();
        String what = target == null ? "" : ", most of it validating " + target.getKey()
                + (method ? (returns >= 0.5 ? "'s return value" : "'s parameters") + " through Spring's method validation (a @Validated bean)" : "");
        Severity sev = share >= SHARE_CRITICAL ? Severity.CRITICAL : Severity.WARN;
        return finding(sev).score(share).evidence(ref).culprit(target == null ? "Bean Validation" : target.getKey())
                .summary("Bean Validation runs in " + n.tag(Fmt.pct(share), ref) + " of CPU samples" + what
                        + (cascades >= 0.5 ? "; " + n.tag(Fmt.pct(cascades), ref) + " of it cascades (@Valid) into nested beans and"
                        + " collections, validating every element" : "") + ".")
                .numbers(n.refs())
                .explanation("A validator checks each constraint of each object it reaches, and @Valid makes it walk into every"
                        + " nested bean and element of a collection, building a path and a context for each. On a @Validated"
                        + " bean, Spring's proxy runs it around every call: the parameters before it, and with @Valid on the"
                        + " return type the whole returned graph after it, even when that graph is cached and was valid the"
                        + " last time.")
                .fix("Validate data once, where it enters (when it is received or loaded into the cache), not on every call: drop"
                        + " @Valid from the return type of a method that returns cached or already-checked data (and @Validated"
                        + " from the bean if nothing else needs it), and validate only what the request reads or changes.")
                .confirm(target == null ? null : ev.confirm("trace " + Frames.classAndMethod(target.getKey())))
                .explains("cpu-saturation").explains("tail-latency").explains("thread-oversubscription").explains("gc-pressure")
                .build();
    }

    private static boolean building(String[] stack) {
        for (String f : stack) if (f.contains("buildValidatorFactory") || f.contains("ValidatorFactoryImpl.<init>")
                || f.contains("buildDefaultValidatorFactory")) return true;
        return false;
    }

    /**
     * What was validated: the application method a proxy intercepted (its CGLIB class's frame,
     * {@code a.B$$SpringCGLIB$$0.m} → {@code a.B.m}), else the application frame above the validator.
     */
    static String validated(String[] rootFirst) {
        String app = null;
        for (String f : rootFirst) {
            if (Frames.startsWithAny(f, VALIDATORS) || f.startsWith(METHOD_VALIDATION)) break;
            String cls = f.contains("$$") ? f.substring(0, f.indexOf("$$")) : null;
            if (cls != null && (f.contains("$$SpringCGLIB$$") || f.contains("$$EnhancerBySpringCGLIB$$"))) {
                app = cls + Frames.stripLine(f).substring(Frames.stripLine(f).lastIndexOf('.'));
            } else if (Frames.isApplication(f)) {
                app = Frames.stripLine(f);
            }
        }
        return app;
    }
}
