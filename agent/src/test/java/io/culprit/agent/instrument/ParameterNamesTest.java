package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.Named;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Before JDK 19 a retransformation drops a class's MethodParameters (JDK-8240908): a Spring 6
 * controller woven before its first request then fails it. Weaving and resetting must leave the
 * names as javac wrote them.
 */
class ParameterNamesTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
    }

    @Test
    void parameterNamesSurviveAWeaveAndItsReset() throws Exception {
        assertThat(names()).as("compiled with -parameters").containsExactly("orderId", "customer");

        FakeContext ctx = new FakeContext().start(new MonitorCommand(), Named.class.getName(), "order", "-c", "60");
        assertThat(new Named().order(7, "ab")).isEqualTo(9);
        assertThat(names()).as("while woven").containsExactly("orderId", "customer");
        ctx.cancel();
        ctx.await();
        assertThat(ctx.failure).isNull();
        assertThat(Instrumenter.liveCount()).isZero();
        assertThat(names()).as("after the reset").containsExactly("orderId", "customer");
    }

    private static List<String> names() throws NoSuchMethodException {
        Parameter[] ps = Named.class.getMethod("order", long.class, String.class).getParameters();
        return Arrays.stream(ps).map(Parameter::getName).collect(Collectors.toList());
    }
}
