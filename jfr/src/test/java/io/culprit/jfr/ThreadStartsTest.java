package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Table;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * Threads started on a request's path are counted by who started them, and an executor built per
 * call shows as one family per start: the evidence for a thread, or a pool, made per request.
 */
class ThreadStartsTest {

    @Test
    void threadsStartedPerCallAreCountedByStarterWithTheirRequestPathAndFamilies() throws Exception {
        Path jfr = Recordings.record(() -> {
            for (int i = 0; i < 6; i++) new HttpServlet().service(ThreadStartsTest::startAndJoin);
            for (int i = 0; i < 4; i++) executorPerCall();
        });
        Table t = JfrFiles.read(jfr).tables(new Observation(0, Long.MAX_VALUE / 2, 0)).get("thread-starts");

        Map<String, Object> perRequest = row(t, "per-request-#");
        assertThat(perRequest.get("site")).isEqualTo(ThreadStartsTest.class.getName() + ".startAndJoin");
        assertThat(perRequest.get("count")).isEqualTo(6L);
        assertThat(perRequest.get("requestPath")).as("all six under HttpServlet.service").isEqualTo(6L);

        Map<String, Object> pools = row(t, "pool-#-thread-#");
        assertThat(pools.get("site")).isEqualTo(ThreadStartsTest.class.getName() + ".executorPerCall");
        assertThat(pools.get("count")).isEqualTo(4L);
        assertThat(pools.get("requestPath")).isEqualTo(0L);
        assertThat(pools.get("families")).as("a new pool number per call").isEqualTo(4L);
    }

    private static Map<String, Object> row(Table t, String group) {
        return t.rows().stream().filter(r -> group.equals(r.get("group"))).findFirst()
                .orElseThrow(() -> new AssertionError(group + " not in " + t.rows()));
    }

    private static void startAndJoin() {
        Thread t = new Thread(() -> { }, "per-request-" + System.nanoTime());
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void executorPerCall() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        pool.submit(() -> { }).get();
        pool.shutdown();
    }
}
