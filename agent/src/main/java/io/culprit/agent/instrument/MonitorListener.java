package io.culprit.agent.instrument;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Per method: a wait-free HdrHistogram {@link Recorder} of durations (its count is the number
 * of calls) and a failure counter. The hot path reads the clock, records and counts — no allocation, no locks; the
 * command thread swaps the recorder's interval histogram once per period.
 */
final class MonitorListener extends Listener {

    /** Highest duration tracked: one hour in nanoseconds; longer calls are clamped to it. */
    private static final long MAX_NANOS = 3_600_000_000_000L;

    static final class Stats {
        final MethodTarget target;
        final Recorder recorder = new Recorder(MAX_NANOS, 2);
        /** Only throwing calls touch this; the histogram's count is the number of calls. */
        final LongAdder failed = new LongAdder();
        Histogram interval;
        // The cumulative sum seen at the last report: deltas of sum() lose nothing, whereas
        // LongAdder.sumThenReset can drop an increment that races with the reset.
        long reportedFailed;

        Stats(MethodTarget target) {
            this.target = target;
        }
    }

    private final CommandRun run;
    private final Stats[] byId;
    private final int firstId;

    MonitorListener(CommandRun run, int firstId, int lastId) {
        this.run = run;
        this.firstId = firstId;
        this.byId = new Stats[lastId - firstId + 1];
    }

    void add(int id, MethodTarget target) {
        byId[id - firstId] = new Stats(target);
    }

    List<Stats> stats() {
        return java.util.Arrays.stream(byId).filter(s -> s != null).collect(java.util.stream.Collectors.toList());
    }

    @Override
    public long enter(int id) {
        return System.nanoTime();
    }

    @Override
    public void exit(int id, long start, Throwable thrown) {
        long took = System.nanoTime() - start;
        Stats s = byId[id - firstId];
        s.recorder.recordValue(Math.min(Math.max(took, 0), MAX_NANOS));
        if (thrown != null) {
            s.failed.increment();
        }
        run.events.increment();
    }
}
