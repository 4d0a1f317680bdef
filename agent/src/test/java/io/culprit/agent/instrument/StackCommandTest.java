package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.Shop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StackCommandTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
    }

    @Test
    void showsTheCallerOfAPrivateMethodAggregatedWithCounts() throws Exception {
        FakeContext ctx = new FakeContext().start(new StackCommand(), Shop.class.getName(), "secret", "-n", "3");
        Shop shop = new Shop();
        for (int i = 0; i < 3; i++) {
            shopCall(shop);
        }
        String out = ctx.await();
        assertThat(out).contains("3 invocations, 1 distinct call paths").contains("3 (100.0%)");
        String frames = out.substring(out.indexOf("at "));
        assertThat(frames).startsWith("at " + Shop.class.getName() + ".secret(Shop.java:");
        assertThat(frames).contains("at " + Shop.class.getName() + ".checkout(Shop.java:")
                .contains("at " + StackCommandTest.class.getName() + ".shopCall(StackCommandTest.java:")
                .doesNotContain("io.culprit.bootstrap.Bridge");
    }

    private static void shopCall(Shop shop) {
        shop.checkout(1);
    }
}
