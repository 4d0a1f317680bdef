package io.culprit.agent.instrument;

import io.culprit.agent.command.CommandContext;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.bootstrap.Bridge;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Measures what one woven call costs an application thread, through the real path (Bridge →
 * dispatcher → listener), on a throwaway listener so no command sees the calls. The overhead
 * breaker multiplies it by the events counted to estimate the agent's CPU. Call once the
 * Bridge is installed (after the command wove), on the command's thread.
 */
final class Calibration {

    private static final int ROUNDS = 15;
    private static final int CALLS = 20_000;

    private Calibration() { }

    /** A run that admits nothing: listeners on it take their skip path. */
    static CommandRun closedRun(CommandContext ctx) {
        CommandRun run = new CommandRun(ctx, "calibration", 0, 0, Long.MAX_VALUE, 100);
        run.claim();  // no permit: closes the gate
        return run;
    }

    /**
     * The best time per call over a few rounds (the least disturbed by other threads), divided
     * by the events the listener counts per call. {@code args}: the argument-passing advice,
     * including the array the woven code allocates.
     */
    static double perEvent(IntFunction<Listener> listenerForId, boolean args, int eventsPerCall) {
        int id = Dispatcher.INSTANCE.reserve(1);
        Dispatcher.INSTANCE.set(id, listenerForId.apply(id));
        try {
            double best = Double.MAX_VALUE;
            String param = "x";
            for (int round = 0; round < ROUNDS; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < CALLS; i++) {
                    if (args) {
                        Object[] a = {param};
                        long start = Bridge.enterArgs(id, null, a);
                        Bridge.exitArgs(id, start, null, a, null, null);
                    } else {
                        Bridge.exit(id, Bridge.enter(id), null);
                    }
                }
                best = Math.min(best, (System.nanoTime() - t0) / (double) CALLS);
            }
            return best / eventsPerCall;
        } finally {
            Dispatcher.INSTANCE.unregisterAll(List.of(id));
        }
    }
}
