package io.culprit.agent.probe;

import java.util.function.BooleanSupplier;

/** Polls a condition the probes' sampler makes true within its next windows (10 s at most). */
final class Until {

    private Until() { }

    static void met(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("condition not met in 10 s");
            Thread.sleep(20);
        }
    }
}
