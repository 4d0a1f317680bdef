package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.Shop;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WatchCommandTest {

    private static final String SHOP = Shop.class.getName();

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Instrumenter.setUnsafe(false);
    }

    @Test
    void exceptionExitCatchesTheExceptionTheCallerSwallows() throws Exception {
        FakeContext ctx = new FakeContext().start(new WatchCommand(), SHOP, "parse", "{params, throwExp}", "-e", "-x", "2", "-n", "1");
        Shop shop = new Shop();
        assertThat(shop.quantity("12")).isEqualTo(12);   // returns normally: -e ignores it
        assertThat(shop.quantity("x1")).isZero();        // swallowed by quantity(), seen by watch
        String out = ctx.await();
        assertThat(out).contains("method=" + SHOP + ".parse location=AtExceptionExit")
                .contains("@String[x1]")
                .contains("java.lang.NumberFormatException: For input string: \"x1\"")
                .doesNotContain("@String[12]");
    }

    @Test
    void successExitSeesParamsAndReturnWithCondition() throws Exception {
        FakeContext ctx = new FakeContext(true).start(new WatchCommand(), SHOP, "price",
                "{params[0], returnObj}", "params[0] > 2 && returnObj == params[0] * 3", "-s", "-n", "1");
        Shop shop = new Shop();
        shop.checkout(1);
        shop.checkout(4);
        ctx.await();
        assertThat(ctx.data).hasSize(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> event = (Map<String, Object>) ctx.data.get(0);
        assertThat(event).containsEntry("location", "AtExit");
        assertThat(event.get("result").toString()).contains("@Integer[4]").doesNotContain("@Integer[1]")
                .contains("@Integer[12]");
    }

    @Test
    void beforeSeesArgumentsAndFieldsOfTarget() throws Exception {
        FakeContext ctx = new FakeContext().start(new WatchCommand(), SHOP, "record", "{params[0], target.journal.size()}", "-b", "-n", "1");
        new Shop().record("hello");
        String out = ctx.await();
        assertThat(out).contains("location=AtEnter").contains("@String[hello]").contains("@Integer[0]");
    }

    @Test
    void unsafeOnlyExpressionsAreRefusedWithoutUnsafe() throws Exception {
        assertThat(TraceCommandTest.fail("watch", SHOP, "parse", "@java.lang.System@getProperty('user.home')"))
                .isEqualTo("refused: static method call @java.lang.System@getProperty() at position 0 needs an agent"
                        + " started with --unsafe in '@java.lang.System@getProperty('user.home')'");
        assertThat(TraceCommandTest.fail("watch", SHOP, "parse", "{params, new java.io.File('x')}"))
                .startsWith("refused: constructor new java.io.File() at position 9");
        assertThat(TraceCommandTest.fail("watch", SHOP, "parse", "params[0].substring(1)"))
                .startsWith("refused: call of method 'substring' at position 10");
        assertThat(TraceCommandTest.fail("watch", SHOP, "parse", "{params,")).startsWith("malformed expression at position 8");
        assertThat(Instrumenter.liveCount()).isZero();

        Instrumenter.setUnsafe(true);
        FakeContext ctx = new FakeContext().start(new WatchCommand(), SHOP, "parse", "params[0].substring(1)", "-n", "1");
        new Shop().quantity("x42");
        assertThat(ctx.await()).contains("@String[42]");
    }
}
