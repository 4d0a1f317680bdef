package io.culprit.agent.profile;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.LiveJfr;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Throughput lost to culprit's eyes: async-profiler (cpu, 10 ms) plus the live JFR stream with
 * culprit's full settings, against nothing, in one run. Phases alternate OFF/ON; each ON phase is
 * compared with the mean of its two OFF neighbours and the median of those ratios is reported, so
 * drift in the machine's load cancels out. One ON cycle runs first, unmeasured, to pay JFR's
 * one-time start-up (class loading, compilation). Goal: at most 2 % lost. The assertion guards only
 * against gross regressions (30 %): a shared machine is noisier than 2 %.
 *
 * <p>A benchmark, not a check: opt in with {@code -Dculprit.bench=true}
 * ({@code mvn -pl agent verify -Dit.test=OverheadBenchIT -Dculprit.bench=true}), on a quiet machine.
 */
@EnabledIfSystemProperty(named = "culprit.bench", matches = "true")
class OverheadBenchIT {
    private static final int PHASES = 9; // OFF ON OFF ON ... OFF
    private static final long PHASE_MS = 1500;
    static volatile Object sink;

    @Test
    void profilerPlusJfrStreamingCostsLittleThroughput() throws Exception {
        AtomicLong ops = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Thread worker = new Thread(() -> { while (!stop.get()) { work(ops.get()); ops.incrementAndGet(); } }, "bench-worker");
        worker.start();
        List<Double> off = new ArrayList<>(), on = new ArrayList<>();
        ProfilerCommand profiler = new ProfilerCommand();
        try {
            // Warm-up, unmeasured: JIT compiles the workload; one ON cycle pays JFR's start-up.
            profiler.run(List.of("start", "--event", "cpu", "--interval", "10ms"), new TestContext());
            LiveJfr first = LiveJfr.start();
            Thread.sleep(1000);
            first.stop(3000);
            profiler.run(List.of("stop", "--format", "jfr"), new TestContext());
            for (int p = 0; p < PHASES; p++) {
                boolean enabled = p % 2 == 1;
                LiveJfr live = null;
                if (enabled) {
                    profiler.run(List.of("start", "--event", "cpu", "--interval", "10ms"), new TestContext());
                    live = LiveJfr.start();
                }
                long o0 = ops.get(), t0 = System.nanoTime();
                Thread.sleep(PHASE_MS); // the measured phase
                double rate = (ops.get() - o0) / ((System.nanoTime() - t0) / 1e9);
                (enabled ? on : off).add(rate);
                if (enabled) {
                    live.stop(3000);
                    profiler.run(List.of("stop", "--format", "jfr"), new TestContext());
                }
            }
        } finally {
            stop.set(true);
            worker.join();
        }
        double[] ratios = new double[on.size()];
        for (int i = 0; i < on.size(); i++) ratios[i] = on.get(i) / ((off.get(i) + off.get(i + 1)) / 2);
        java.util.Arrays.sort(ratios);
        double lost = 100 * (1 - ratios[ratios.length / 2]);
        System.out.printf(Locale.ROOT, "overhead bench: none %s ops/s | profiler cpu 10ms + JFR stream %s ops/s | lost %.1f %% (median of neighbour ratios)%n",
                rates(off), rates(on), lost);
        assertThat(lost).as("throughput lost, percent").isLessThan(30.0);
    }

    private static String rates(List<Double> l) {
        StringBuilder sb = new StringBuilder("[");
        for (double d : l) sb.append(sb.length() > 1 ? " " : "").append(String.format(Locale.ROOT, "%.0f", d));
        return sb.append(']').toString();
    }

    /** A service-like unit of work: some hashing, allocation, and a rare swallowed exception. */
    static void work(long i) {
        Map<String, Integer> m = new HashMap<>();
        for (int k = 0; k < 64; k++) m.put("key" + (k * 31 + i % 7), k);
        List<String> keys = new ArrayList<>(m.keySet());
        keys.sort(null);
        sink = keys;
        if (i % 1000 == 0) {
            try {
                Class.forName("bench.Missing");
            } catch (ClassNotFoundException swallowed) {
                // rare, like real services
            }
        }
    }
}
