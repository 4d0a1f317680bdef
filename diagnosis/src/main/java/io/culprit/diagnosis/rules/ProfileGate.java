package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;

/** The cpu profile a rule that reads shares of it judges on, and why it cannot when the case has none to read. */
final class ProfileGate {
    /** Below this many samples a share is noise (a profile of an idle service). */
    static final long MIN_SAMPLES = 100;

    private ProfileGate() {}

    /** The case's cpu profile when it has {@link #MIN_SAMPLES} samples or more, else null. */
    static CpuProfile enough(Evidence ev) {
        return ev.cpuProfileIfAny().filter(p -> p.samples() >= MIN_SAMPLES).orElse(null);
    }

    /** Why {@link #enough} found none: the not-assessed reason. */
    static String missing(Evidence ev) {
        return ev.cpuProfileIfAny().map(p -> "only " + p.samples() + " CPU samples").orElse("no cpu profile (profiles/cpu.collapsed)");
    }
}
