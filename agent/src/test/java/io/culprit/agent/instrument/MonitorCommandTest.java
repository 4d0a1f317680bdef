package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.Shop;
import io.culprit.agent.instrument.fixture.Spinner;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MonitorCommandTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
    }

    @Test
    void countsExactlyTheCallsMadeAndTheFailures() throws Exception {
        Shop shop = new Shop();
        FakeContext ctx = new FakeContext(true).start(new MonitorCommand(), Shop.class.getName(), "quantity", "-c", "60");
        for (int i = 0; i < 37; i++) {
            shop.quantity(i % 5 == 0 ? "x" : "12");  // the NumberFormatException is swallowed: no failure
        }
        ctx.cancel();
        ctx.await();
        assertThat(ctx.failure).isNull();
        @SuppressWarnings("unchecked")
        Map<String, Object> row = ((List<Map<String, Object>>) ctx.data.get(ctx.data.size() - 1)).get(0);
        assertThat(row).containsEntry("method", "quantity").containsEntry("total", 37L)
                .containsEntry("success", 37L).containsEntry("fail", 0L);
        assertThat((double) row.get("maxMs")).isLessThan(1_000);
    }

    /** Overloads get a row each, told apart by their parameters; every row is as wide as the header. */
    @Test
    void overloadsAreToldApartByTheirParameters() throws Exception {
        Shop shop = new Shop();
        FakeContext ctx = new FakeContext().start(new MonitorCommand(), Shop.class.getName(), "tally", "-c", "60");
        for (int i = 0; i < 3; i++) shop.tally(i);
        for (int i = 0; i < 5; i++) shop.tally(i, "ms");
        ctx.cancel();
        String text = ctx.await();
        assertThat(ctx.failure).isNull();
        assertThat(text).containsPattern("Shop\\s+tally\\(int\\)\\s+3\\s+3\\s")
                .containsPattern("Shop\\s+tally\\(long, String\\)\\s+5\\s+5\\s");
        List<String> lines = text.lines().filter(l -> l.contains("total") || l.contains("tally")).toList();
        assertThat(lines).hasSize(3).allSatisfy(l -> assertThat(l.length()).as(l).isEqualTo(lines.get(0).length()));
    }

    /** Weaving a class a thread loops in leaves that loop on the old code: the Affect line says so (LoopingThreads). */
    @Test
    void saysWhichThreadsLoopInTheWovenClass() throws Exception {
        Spinner spinner = new Spinner();
        Thread loop = new Thread(spinner, "culprit-test-spinner");
        loop.setDaemon(true);
        loop.start();
        try {
            while (spinner.steps() == 0) Thread.onSpinWait();
            FakeContext looped = new FakeContext().start(new MonitorCommand(), Spinner.class.getName(), "step", "-c", "60");
            FakeContext plain = new FakeContext().start(new MonitorCommand(), Shop.class.getName(), "quantity", "-c", "60");
            looped.cancel();
            plain.cancel();
            looped.await();
            plain.await();
            assertThat(looped.lines.get(0)).contains("; 1 thread(s) loop in a woven class (culprit-test-spinner in Spinner.run)");
            assertThat(plain.lines.get(0)).doesNotContain("loop");
        } finally {
            spinner.stop();
            loop.join();
        }
    }

    @Test
    void countsThrownCallsAsFailuresAndReachesImplementationsOfAnInterface() throws Exception {
        Shop shop = new Shop();
        FakeContext ctx = new FakeContext().start(new MonitorCommand(), "io.culprit.agent.instrument.fixture.Pricing", "price", "-c", "60");
        FakeContext parse = new FakeContext(true).start(new MonitorCommand(), Shop.class.getName(), "parse", "-c", "60");
        for (int i = 0; i < 10; i++) {
            shop.checkout(2);
        }
        for (int i = 0; i < 9; i++) {
            shop.quantity(i < 4 ? "bad" : "7");
        }
        ctx.cancel();
        parse.cancel();
        String text = ctx.await();
        parse.await();
        assertThat(text).containsPattern("StandardPricing\\s+price\\s+10\\s+10\\s+0");
        @SuppressWarnings("unchecked")
        Map<String, Object> row = ((List<Map<String, Object>>) parse.data.get(parse.data.size() - 1)).get(0);
        assertThat(row).containsEntry("total", 9L).containsEntry("success", 5L).containsEntry("fail", 4L);
    }

    @Test
    void theBreakerStopsACommandThatFiresTooOften() throws Exception {
        Shop shop = new Shop();
        FakeContext ctx = new FakeContext().start(new MonitorCommand(), Shop.class.getName(), "record", "--budget", "1000");
        long end = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < end && ctx.failure == null) {
            shop.record("x");
        }
        ctx.await();
        assertThat(ctx.failure).hasMessageContaining("exceeds the budget of 1,000/s").hasMessageContaining("narrow");
        assertThat(Instrumenter.liveCount()).isZero();
    }
}
