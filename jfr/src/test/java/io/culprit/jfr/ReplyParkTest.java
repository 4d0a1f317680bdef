package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.Table;
import io.grpc.stub.ClientCalls;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A request that parks for a client's reply (gRPC's blocking stubs park on their call's
 * ThreadlessExecutor until the event loop has read it) is in the {@code locks} table as kind
 * {@code reply}, not as contention; the same park off a request's path is not there at all.
 */
class ReplyParkTest {

    @Test
    void aRequestParkedForAClientsReplyIsAReplyRowAndABackgroundOneIsLeftOut() throws Exception {
        Path jfr = Recordings.record(() -> {
            for (int round = 0; round < 4; round++) {
                new HttpServlet().service(ReplyParkTest::call);
                call();  // the same call from a thread that serves no request
            }
        });
        Table locks = JfrFiles.read(jfr).tables(new io.culprit.jfr.collect.Observation(0, Long.MAX_VALUE / 2, 0)).get("locks");
        List<Map<String, Object>> replies = locks.rows().stream().filter(r -> "reply".equals(r.get("kind"))).collect(java.util.stream.Collectors.toList());
        assertThat(replies).as("%s", locks.rows()).hasSize(1);
        assertThat(replies.get(0).get("lockClass")).isEqualTo(ClientCalls.ThreadlessExecutor.class.getName());
        // One park per call, and one more for a spurious wakeup (park may return for no reason).
        assertThat(((Number) replies.get(0).get("events")).longValue()).as("the requests' four waits").isBetween(4L, 6L);
        assertThat(((Number) replies.get(0).get("blockedMs")).doubleValue()).isGreaterThan(4 * 15);
        assertThat(locks.rows()).noneMatch(r -> ClientCalls.ThreadlessExecutor.class.getName().equals(r.get("lockClass"))
                && !"reply".equals(r.get("kind")));
    }

    /** A blocking call whose reply another thread delivers 20 ms after the caller waits for it. */
    private static void call() {
        ClientCalls.ThreadlessExecutor executor = new ClientCalls.ThreadlessExecutor();
        Thread transport = new Thread(() -> {
            while (!executor.awaited()) Thread.onSpinWait();
            long end = System.nanoTime() + 20_000_000L;
            while (System.nanoTime() < end) Thread.onSpinWait();
            executor.deliver();
        }, "transport");
        transport.start();
        executor.waitAndDrain();
        try {
            transport.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
