package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.instrument.fixture.Spinner;
import java.util.List;

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

    /** The slow-calls verdict confirms with {@code trace java.sql.PreparedStatement execute*}: a JDK interface stands for its drivers' classes. */
    @Test
    void aJdkInterfaceStandsForItsImplementationsOutsideTheJdk() throws Exception {
        new Spinner();  // loaded, so it is among the implementations
        List<MethodTarget> targets = TargetResolver.resolve(FakeContext.INST, "java.lang.Runnable", "run", false, false);
        assertThat(targets).anyMatch(t -> t.type == Spinner.class && t.method.name.equals("run"));
        assertThat(targets).noneMatch(t -> TargetResolver.isJdk(t.type.getName()));
        // A wildcard over JDK packages does not stand for every implementation of every JDK interface.
        assertThatThrownBy(() -> TargetResolver.resolve(FakeContext.INST, "java.lang.Runn*", "run", false, false))
                .hasMessageStartingWith("refused: 'java.lang.Runn*' matches JDK core classes only");
        // A concrete JDK class is still refused without --include-jdk.
        assertThatThrownBy(() -> TargetResolver.resolve(FakeContext.INST, "java.util.ArrayList", "add", false, false))
                .hasMessageStartingWith("refused: 'java.util.ArrayList' matches JDK core classes only");
    }
}
