package io.culprit.agent.command.basic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard's memory table carries what the heap held after its last collection: the live set a leak raises. */
class DashboardCommandTest {

    @Test
    @SuppressWarnings("unchecked")
    void theHeapAfterTheLastCollectionIsShownBesideItsUse() {
        System.gc();
        Map<String, Object> frame = DashboardCommand.sample(new DashboardCommand.CpuMeter());
        Map<String, Object> heap = (Map<String, Object>) frame.get("heap");
        assertThat(heap.get("afterGc")).isInstanceOf(Long.class);
        assertThat((Long) heap.get("afterGc")).isPositive().isLessThanOrEqualTo((Long) heap.get("committed"));
        List<Map<String, Object>> pools = (List<Map<String, Object>>) frame.get("pools");
        assertThat(pools).filteredOn(p -> "NON_HEAP".equals(p.get("type"))).allSatisfy(p -> assertThat(p.get("afterGc")).isNull());
        String text = DashboardCommand.render(frame);
        assertThat(text).contains("AFTER GC");
        String heapRow = text.lines().filter(l -> l.startsWith("heap ")).findFirst().orElseThrow();
        assertThat(heapRow.trim()).doesNotEndWith("-");
    }
}
