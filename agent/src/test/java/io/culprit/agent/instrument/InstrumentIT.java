package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.Shop;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The instrumenting commands through the packaged agent (launcher, isolated loader, Bridge on
 * the bootstrap class path, channel) in a separate target JVM. Tolerances: a 50 ms sleep shows
 * as in {@link TraceCommandTest#assertSleepShown}; metaspace may grow by at most 2 MB across the attach/detach cycles after the first
 * (which loads the Bridge for good).
 */
class InstrumentIT {

    private static final String SHOP = Shop.class.getName();

    @Test
    void traceWatchStackMonitorAndResetOnALiveTarget() throws Exception {
        try (ShopTarget target = new ShopTarget(false)) {
            try {
                AgentChannel agent = AgentChannel.attach(target.pid);

                AgentChannel.Call trace = agent.start("trace " + SHOP + " checkout --depth 3 -n 1").awaitOut("Affect(", 30);
                String done = target.ask("checkout", "done checkout");
                double truth = Double.parseDouble(done.substring(done.indexOf("slowStepMs=") + "slowStepMs=".length()));
                String tree = trace.awaitEnd(30).out.toString();
                Matcher m = Pattern.compile("([0-9.]+)ms\\] " + Pattern.quote(SHOP) + ":slowStep\\(\\) #\\d+[^\\n]*<-- slowest").matcher(tree);
                assertThat(m.find()).as(tree).isTrue();
                TraceCommandTest.assertSleepShown(Double.parseDouble(m.group(1)), truth);
                assertThat(tree).contains(":ledger()").contains(":journal()");

                AgentChannel.Call watch = agent.start("watch " + SHOP + " parse '{params[0], throwExp}' -e -n 1").awaitOut("Affect(", 30);
                target.ask("quantity 5", "done quantity 5");
                target.ask("quantity x1", "done quantity 0");
                assertThat(watch.awaitEnd(30).out.toString()).contains("location=AtExceptionExit").contains("@String[x1]")
                        .contains("NumberFormatException");

                AgentChannel.Call stack = agent.start("stack " + SHOP + " secret -n 1").awaitOut("Affect(", 30);
                target.ask("checkout", "done checkout");
                assertThat(stack.awaitEnd(30).out.toString()).contains("at " + SHOP + ".checkout(Shop.java:");

                AgentChannel.Call monitor = agent.start("monitor " + SHOP + " price -c 3 -n 1").awaitOut("Affect(", 30);
                target.ask("price 37", "done price");
                assertThat(monitor.awaitEnd(30).out.toString()).containsPattern("price\\s+37\\s+37\\s+0\\s");

                AgentChannel.Call refused = agent.run("watch " + SHOP + " parse '@java.lang.System@exit(1)'", false);
                assertThat(refused.code).isEqualTo(2);
                assertThat(refused.err.get(0)).startsWith("refused: static method call @java.lang.System@exit()");

                assertThat(agent.run("reset", false).out.toString()).contains("Affect(class count: 0)");
                assertThat(agent.run("stop", false).code).isZero();
                assertThat(target.ask("checkout", "done checkout")).startsWith("done checkout 6 ");
            } catch (AssertionError | Exception e) {
                throw new AssertionError(e.getMessage() + "\n" + target.dump(), e);
            }
        }
    }

    @Test
    void attachTraceResetDetachCyclesUnderLoad() throws Exception {
        int cycles = Integer.getInteger("culprit.it.cycles", 10);
        try (ShopTarget target = new ShopTarget(true)) {
            try {
                long metaspaceAfterFirst = 0;
                for (int i = 0; i < cycles; i++) {
                    AgentChannel agent = AgentChannel.attach(target.pid);
                    AgentChannel.Call trace = agent.run("trace " + SHOP + " serve -n 1", false);
                    assertThat(trace.code).as(trace.toString()).isZero();
                    assertThat(trace.out.toString()).contains(":quantity()");
                    assertThat(agent.run("reset", false).code).isZero();
                    assertThat(agent.run("stop", false).code).isZero();
                    awaitNoAgentThreads(target);
                    if (i == 0) {
                        metaspaceAfterFirst = stats(target)[2];
                    }
                }
                // A detached agent's loader can outlive its last GC by a little: compiled code of the
                // woven methods inlined the agent's listener and is flushed lazily. Poll, bounded.
                long[] stats = stats(target);
                for (int i = 0; i < 10 && stats[2] - metaspaceAfterFirst > 2L * 1024 * 1024; i++) {
                    Thread.sleep(1000);
                    stats = stats(target);
                }
                System.out.printf("[InstrumentIT] %d cycles: %d requests, %d failed, metaspace %+d KB after the first%n",
                        cycles, stats[0], stats[1], (stats[2] - metaspaceAfterFirst) / 1024);
                assertThat(stats[0]).isPositive();
                assertThat(stats[1]).isZero();
                assertThat(stats[2] - metaspaceAfterFirst).isLessThanOrEqualTo(2L * 1024 * 1024);
            } catch (AssertionError | Exception e) {
                throw new AssertionError(e.getMessage() + "\n" + target.dump(), e);
            }
        }
    }

    private static long[] stats(ShopTarget target) throws Exception {
        String[] w = target.ask("stats", "stats").split(" ");
        return new long[] {Long.parseLong(w[1]), Long.parseLong(w[2]), Long.parseLong(w[3])};
    }

    /** Detach ends agent threads asynchronously after stop answers: poll, bounded. */
    private static void awaitNoAgentThreads(ShopTarget target) throws Exception {
        String threads = "";
        for (int i = 0; i < 100; i++) {
            threads = target.ask("threads", "threads");
            if (Arrays.stream(threads.split(" ")).noneMatch(n -> n.startsWith("culprit-"))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("agent threads left after stop: " + threads);
    }
}
