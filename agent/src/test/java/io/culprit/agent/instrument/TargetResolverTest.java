package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TargetResolverTest {

    @Test
    void theAgentsOwnClassesAreOffLimitsButTheLabIsATarget() {
        assertThat(TargetResolver.agentOwn("io.culprit.agent.probe.Probes")).isTrue();
        assertThat(TargetResolver.agentOwn("io.culprit.bootstrap.Bridge")).isTrue();
        assertThat(TargetResolver.agentOwn("io.culprit.jfr.collect.LiveJfr")).isTrue();
        assertThat(TargetResolver.agentOwn("net.bytebuddy.asm.Advice")).isTrue();
        assertThat(TargetResolver.agentOwn("io.culprit.agent.instrument.fixture.Shop")).isFalse();
        // The verdicts' confirm commands trace these (trace io.culprit.lab.products.KeywordsController add).
        assertThat(TargetResolver.agentOwn("io.culprit.lab.products.KeywordsController")).isFalse();
    }

    @Test
    void aWildcardClassNameGetsThePackagesBesideTheOneItNamed() throws Exception {
        Class<?>[] loaded = {java.util.ArrayList.class, java.util.concurrent.atomic.AtomicLong.class,
            java.util.concurrent.locks.ReentrantLock.class, java.util.function.Function.class, java.lang.String.class};
        assertThat(TargetResolver.closeMatches(loaded, "java.util.concurrentt.*"))
                .isEqualTo("; packages loaded under java.util: java.util.concurrent, java.util.function");
        assertThat(TargetResolver.closeMatches(loaded, "java.util.concurrent.*.*"))
                .isEqualTo("; packages loaded under java.util.concurrent: java.util.concurrent.atomic, java.util.concurrent.locks");
        // A simple name to compare still gets the closest class names, never a two-letter one for '*'.
        assertThat(TargetResolver.closeMatches(loaded, "java.util.ArayList")).isEqualTo("; close matches: java.util.ArrayList");
        assertThat(TargetResolver.closeMatches(new Class<?>[] {Class.forName("jdk.internal.misc.VM")}, "io.culprit.lab.catalog.*")).isEmpty();
    }
}
