package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Redis commands through the real Lettuce client against the Redis server on 127.0.0.1:6379:
 * sync and async commands are counted by name, and a BLPOP the server holds for 150 ms is timed
 * from dispatch to reply and alerted. Lettuce is used once before the probes start (only loaded
 * classes are woven).
 */
class LettuceProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void commandsAreTimedFromDispatchToReplyAndASlowOneIsAlerted() throws Exception {
        assumeTrue(redisUp(), "no Redis on 127.0.0.1:6379");
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            redis.set("culprit:lettuce", "0");  // loads and links Lettuce's classes before the weave
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(LettuceHooks.CHANNEL_HANDLER + ".dispatch"));
            p.thresholds.redisMs = 100;  // above what a GET takes even on a loaded machine, below the BLPOP
            for (int i = 0; i < 20; i++) redis.set("culprit:lettuce", Integer.toString(i));
            for (int i = 0; i < 25; i++) redis.get("culprit:lettuce");
            for (int i = 0; i < 5; i++) connection.async().get("culprit:lettuce").get(10, TimeUnit.SECONDS);
            redis.del("culprit:lettuce:empty");
            long t0 = System.nanoTime();
            redis.blpop(0.15, "culprit:lettuce:empty");  // the server answers nil after 150 ms
            long blockedMs = (System.nanoTime() - t0) / 1_000_000;

            assertThat(waitForRow(p, "SET", 20)).containsEntry("count", 20L);
            assertThat(waitForRow(p, "GET", 30)).containsEntry("count", 30L).containsEntry("errors", 0L);
            Map<String, Object> blpop = waitForRow(p, "BLPOP", 1);
            assertThat((Double) blpop.get("maxMs")).isBetween(140.0, blockedMs + 1.0);
            assertThat(blpop).containsEntry("slowCount", 1L);
            assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("SLOW redis").contains("BLPOP");
        } finally {
            client.shutdown();
        }
    }

    /** Completions are recorded on Lettuce's event loop, a moment after the caller got its reply. */
    private static Map<String, Object> waitForRow(Probes p, String command, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<Map<String, Object>> rows = p.calls.rows(0, 0);
            for (Map<String, Object> r : rows) {
                if ("redis".equals(r.get("kind")) && command.equals(r.get("target")) && (Long) r.get("count") >= count) return r;
            }
            if (System.nanoTime() > deadline) throw new AssertionError("no redis row " + command + " ×" + count + " in " + rows);
            Thread.sleep(10);  // polling for another thread's record, not standing in for it
        }
    }

    private static boolean redisUp() {
        try (Socket s = new Socket("127.0.0.1", 6379)) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
