package io.culprit.jfr.collect;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecentIdsTest {

    @Test
    void anIdIsNewOnceAndForgottenAfterCapacityOthers() {
        RecentIds ids = new RecentIds(3);
        assertThat(ids.seen(7)).isFalse();
        assertThat(ids.seen(7)).isTrue();
        assertThat(ids.seen(8)).isFalse();
        assertThat(ids.seen(9)).isFalse();
        assertThat(ids.seen(10)).isFalse();   // 7 falls out
        assertThat(ids.seen(7)).isFalse();
    }
}
