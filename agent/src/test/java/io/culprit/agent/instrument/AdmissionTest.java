package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.Shop;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What application threads may hand to a command: the first N matching invocations exactly (N up
 * to 1024), or a stream of at most --rate per second with every other call counted as skipped;
 * allocation-free skipping; and the CPU budget.
 */
class AdmissionTest {

    private static final String SHOP = Shop.class.getName();

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
    }

    @Test
    void printsExactlyTheFirstNMatchingInvocationsInOrder() throws Exception {
        FakeContext ctx = new FakeContext().start(new WatchCommand(), SHOP, "quantity", "params[0]", "-s", "-n", "50");
        Shop shop = new Shop();
        for (int i = 0; i < 2_000; i++) {
            shop.quantity(Integer.toString(i));
        }
        String out = ctx.await();
        List<Integer> seen = new ArrayList<>();
        Matcher m = Pattern.compile("result=@String\\[(\\d+)]").matcher(out);
        while (m.find()) {
            seen.add(Integer.parseInt(m.group(1)));
        }
        List<Integer> first = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            first.add(i);
        }
        assertThat(seen).isEqualTo(first);
        assertThat(out).doesNotContain("skipped");
    }

    @Test
    void aLargeNIsAStreamOfAtMostTheRateWithEveryOtherCallCounted() throws Exception {
        FakeContext ctx = new FakeContext().start(new TraceCommand(), SHOP, "quantity", "-n", "1000000", "--rate", "20");
        Shop shop = new Shop();
        int calls = 0;
        long start = System.nanoTime();
        Thread[] threads = new Thread[3];
        int[] made = new int[threads.length];
        for (int t = 0; t < threads.length; t++) {
            int slot = t;
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 20_000; i++) {
                    shop.quantity("7");
                    made[slot]++;
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        Thread.sleep(1_000);  // the command thread grants ~20 more permits
        ctx.cancel();
        String out = ctx.await();
        double seconds = (System.nanoTime() - start) / 1e9;
        for (int n : made) {
            calls += n;
        }
        int printed = out.split("`---ts=", -1).length - 1;
        Matcher m = Pattern.compile("([\\d,]+) records skipped \\(client slower than target; at most 20 printed per second").matcher(out);
        assertThat(m.find()).as(out.substring(Math.max(0, out.length() - 300))).isTrue();
        long skipped = Long.parseLong(m.group(1).replace(",", ""));
        // -n beyond the queue's capacity is a stream: 20 in the first second, 20 a second after.
        assertThat(printed).isGreaterThanOrEqualTo(20).isLessThanOrEqualTo(20 + (int) Math.ceil(20 * seconds));
        assertThat(printed + skipped).isEqualTo(calls);
    }

    @Test
    void aTracedCallAllocatesNothingWhileTheClientIsBehind() throws Exception {
        FakeContext ctx = new FakeContext().start(new TraceCommand(), SHOP, "quantity", "-n", "1000000", "--rate", "1",
                "--budget", "1000000000000", "--cpu-budget", "100");
        Shop shop = new Shop();
        for (int i = 0; i < 50_000; i++) {  // past the first burst of records, and JIT-compiled
            shop.quantity("7");
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(id);
        int calls = 200_000;
        for (int i = 0; i < calls; i++) {
            shop.quantity("7");
        }
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        ctx.cancel();
        String out = ctx.await();
        assertThat(out).contains("records skipped");
        // One allocation per call would be ≥ 16 B/call (3.2 MB); allow stray one-offs.
        assertThat(allocated).as("bytes allocated by %d traced calls", calls).isLessThan(64 * 1024);
    }

    @Test
    void theCpuBudgetStopsACommandThatCostsTooLargeAShareOfTheProcess() throws Exception {
        // The event budget is lifted so that only the CPU estimate can stop it: a tight loop on a
        // tiny method spends most of its time in the woven code.
        Shop shop = new Shop();
        FakeContext ctx = new FakeContext().start(new MonitorCommand(), SHOP, "record",
                "--budget", "1000000000000", "--cpu-budget", "5");
        long end = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < end && ctx.failure == null) {
            shop.record("x");
        }
        ctx.await();
        assertThat(ctx.failure).isNotNull();
        assertThat(ctx.failure.getMessage()).contains("stopped monitor: its instrumentation took an estimated")
                .contains("of the process's CPU").contains("over the budget of 5%").contains("narrow");
        assertThat(Instrumenter.liveCount()).isZero();
    }

    @Test
    void aCheapCommandOnARarelyCalledMethodIsNotStopped() throws Exception {
        Shop shop = new Shop();
        FakeContext ctx = new FakeContext().start(new MonitorCommand(), SHOP, "quantity", "-c", "60", "--cpu-budget", "5");
        long end = System.nanoTime() + 1_500_000_000L;
        while (System.nanoTime() < end) {
            shop.quantity("3");
            Thread.sleep(1);
        }
        ctx.cancel();
        ctx.await();
        assertThat(ctx.failure).isNull();
    }
}
