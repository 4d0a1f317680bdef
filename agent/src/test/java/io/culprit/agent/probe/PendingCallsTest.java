package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The table that carries a call's start from the thread that began it to the one that ends it. */
class PendingCallsTest {

    @Test
    void aStartIsTakenOnceByItsOwnKeyOnly() {
        PendingCalls pending = new PendingCalls();
        Object a = new Object(), b = new Object();
        assertThat(pending.put(a, 100)).isTrue();
        assertThat(pending.put(b, 200)).isTrue();
        assertThat(pending.take(new Object())).isEqualTo(PendingCalls.NONE);
        assertThat(pending.take(b)).isEqualTo(200);
        assertThat(pending.take(a)).isEqualTo(100);
        assertThat(pending.take(a)).as("taken already").isEqualTo(PendingCalls.NONE);
    }

    @Test
    void aCallsValueIsHandedBackOnceWithItsKey() {
        PendingCalls pending = new PendingCalls();
        Object a = new Object(), b = new Object();
        assertThat(pending.put(a, 100, "stats of a")).isTrue();
        assertThat(pending.put(b, 200, "stats of b")).isTrue();
        assertThat(pending.value(b)).isEqualTo("stats of b");
        assertThat(pending.take(b)).isEqualTo(200);
        assertThat(pending.value(b)).as("taken already").isNull();
        assertThat(pending.value(a)).isEqualTo("stats of a");
    }

    @Test
    void aFullTableDropsNewCallsUntilItsOldestAreStale() {
        PendingCalls pending = new PendingCalls();
        int kept = 0;
        for (int i = 0; i < 10_000; i++) if (pending.put(new Object(), 1_000)) kept++;
        assertThat(kept).isLessThanOrEqualTo(1024).isGreaterThan(900);  // slots are found near the key's home, not anywhere
        Object late = new Object();
        assertThat(pending.put(late, 2_000)).as("live calls everywhere near its home").isFalse();
        long later = 1_000 + PendingCalls.STALE_NS + 1;
        assertThat(pending.put(late, later)).as("a stale call's slot is reclaimed").isTrue();
        assertThat(pending.take(late)).isEqualTo(later);
    }
}
