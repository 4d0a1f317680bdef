package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Redis commands through the real Lettuce client against the Redis server on 127.0.0.1:6379:
 * sync, async and reactive commands are counted by name, and a BLPOP (sync) and a BRPOP
 * (reactive) the server holds for 150 ms are timed from dispatch to reply, the first alerted. Lettuce is used once before the probes start (only loaded
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
        assumeTrue(CallRows.redisUp(), "no Redis on 127.0.0.1:6379");
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
            // reactive commands: dispatched when subscribed, completed on the event loop, no future to hang a callback on
            connection.reactive().get("culprit:lettuce").block(Duration.ofSeconds(10));
            for (int i = 0; i < 4; i++) connection.reactive().exists("culprit:lettuce").block(Duration.ofSeconds(10));
            long r0 = System.nanoTime();
            connection.reactive().brpop(0.15, "culprit:lettuce:empty").block(Duration.ofSeconds(10));
            long reactiveBlockedMs = (System.nanoTime() - r0) / 1_000_000;
            redis.del("culprit:lettuce:empty");
            long t0 = System.nanoTime();
            redis.blpop(0.15, "culprit:lettuce:empty");  // the server answers nil after 150 ms
            long blockedMs = (System.nanoTime() - t0) / 1_000_000;

            assertThat(CallRows.waitForRow(p, "redis", "SET", 20)).containsEntry("count", 20L);
            assertThat(CallRows.waitForRow(p, "redis", "EXISTS", 4)).containsEntry("count", 4L).containsEntry("reactiveClient", "lettuce");
            Map<String, Object> brpop = CallRows.waitForRow(p, "redis", "BRPOP", 1);
            assertThat((Double) brpop.get("maxMs")).isBetween(140.0, reactiveBlockedMs + 1.0);
            assertThat(CallRows.waitForRow(p, "redis", "GET", 31)).containsEntry("count", 31L).containsEntry("errors", 0L)
                    // the call site is read on the caller's thread: on Lettuce's event loop no frame is the application's
                    .doesNotContainEntry("caller", "(unknown)");
            Map<String, Object> blpop = CallRows.waitForRow(p, "redis", "BLPOP", 1);
            assertThat((Double) blpop.get("maxMs")).isBetween(140.0, blockedMs + 1.0);
            assertThat(blpop).containsEntry("slowCount", 1L);
            assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("SLOW redis").contains("BLPOP");
            redis.del("culprit:lettuce");  // the machine's Redis keeps nothing of the test
        } finally {
            client.shutdown();
        }
    }
}
