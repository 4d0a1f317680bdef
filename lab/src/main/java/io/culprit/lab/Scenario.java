package io.culprit.lab;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The seeded faults. Each has a ground-truth file {@code scenarios/<name>.json} on the class path
 * (root cause, culprit frames, symptoms, fix, JVM flags, load shape) that culprit's tests read.
 */
public enum Scenario {
    HEALTHY("healthy"),
    IDLE_RESOURCE_SCAN("idle-resource-scan"),
    GC_POOL_STARVATION("gc-pool-starvation"),
    CONVERTER_REBUILD("converter-rebuild"),
    ROW_LOCK("row-lock"),
    PROTOTYPE_BEAN("prototype-bean"),
    TIMER_LOCK("timer-lock"),
    BINDING_EXCEPTIONS("binding-exceptions"),
    LOG_STORM("log-storm"),
    N_PLUS_ONE("n-plus-one"),
    QUADRATIC_KEYWORDS("quadratic-keywords"),
    RECEIPT_LEAK("receipt-leak"),
    OVER_FETCH("over-fetch");

    private final String slug;

    Scenario(String slug) {
        this.slug = slug;
    }

    /** The name used on the command line and for the ground-truth file. */
    public String slug() {
        return slug;
    }

    /** Class-path location of the ground-truth JSON. */
    public String groundTruthResource() {
        return "scenarios/" + slug + ".json";
    }

    public static Scenario of(String name) {
        for (Scenario s : values()) {
            if (s.slug.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown lab scenario '" + name + "'; known: "
                + Arrays.stream(values()).map(Scenario::slug).collect(Collectors.joining(", ")));
    }
}
