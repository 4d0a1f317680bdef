package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * HotSpot's JSON thread dump read into rows of the locks table: a dump taken on Temurin 25 while
 * three virtual threads ran {@code synchronized (LOCK) { Thread.sleep(2000); }} (v0 holding it).
 */
class VirtualThreadLocksTest {

    @Test
    void blockedVirtualThreadsAreCountedOnTheirMonitorWithItsOwnersStack() throws Exception {
        VirtualThreadLocks locks = new VirtualThreadLocks(1000);
        try (InputStream in = getClass().getResourceAsStream("/thread-dumps/jdk25-blocked-virtual-threads.json")) {
            locks.add(new ObjectMapper().readTree(in));
        }
        List<Map<String, Object>> rows = locks.rows();
        assertThat(rows).hasSize(1);
        Map<String, Object> r = rows.get(0);
        assertThat(r).containsEntry("lockClass", "java.lang.Object").containsEntry("kind", "monitor")
                .containsEntry("events", 2L).containsEntry("blockedMs", 2000.0).containsEntry("ownerThread", "v0");
        @SuppressWarnings("unchecked") List<String> waiter = (List<String>) r.get("waiterStack"), owner = (List<String>) r.get("ownerStack");
        assertThat(waiter).first().isEqualTo("D.work:6");
        assertThat(owner).contains("java.lang.Thread.sleep:540", "D.work:6");
    }

    @Test
    void framesAreWrittenAsCulpritWritesThem() {
        assertThat(VirtualThreadLocks.frame("java.base/java.lang.Thread.sleep(Thread.java:540)")).isEqualTo("java.lang.Thread.sleep:540");
        assertThat(VirtualThreadLocks.frame("app//com.acme.Api.quote(Api.java:57)")).isEqualTo("com.acme.Api.quote:57");
        assertThat(VirtualThreadLocks.frame("java.base/jdk.internal.misc.Unsafe.park(Native Method)")).isEqualTo("jdk.internal.misc.Unsafe.park");
        assertThat(VirtualThreadLocks.frame("D.work(D.java:6)")).isEqualTo("D.work:6");
    }
}
