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

    /** Connections opened per command, by either client, are counted with the application's call site. */
    @Test
    void connectionsOpenedPerCommandAreCountedWithTheirCaller() throws Exception {
        assumeTrue(CallRows.redisUp(), "no Redis on 127.0.0.1:6379");
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try {
            acme.RecentViews.lettuceView(client, "culprit:connect");  // loads both clients' classes before the weave
            acme.RecentViews.jedisView("culprit:connect");
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(RedisConnectHooks.LETTUCE_CLIENT + ".connectStandaloneAsync"))
                    .anyMatch(w -> w.startsWith(RedisConnectHooks.JEDIS_SOCKETS + ".createSocket"));
            for (int i = 0; i < 6; i++) acme.RecentViews.lettuceView(client, "culprit:connect");
            for (int i = 0; i < 4; i++) acme.RecentViews.jedisView("culprit:connect");
            // A shared connection connects once, whatever it runs.
            try (StatefulRedisConnection<String, String> shared = client.connect()) {
                for (int i = 0; i < 10; i++) shared.sync().get("culprit:connect");
            }

            Map<String, Object> lettuce = CallRows.row(p, RedisConnectHooks.KIND, "connect redis://127.0.0.1:6379 (Lettuce)");
            assertThat(lettuce).containsEntry("count", 7L);
            assertThat((String) lettuce.get("caller")).startsWith("acme.RecentViews.lettuceView:");
            Map<String, Object> jedis = CallRows.row(p, RedisConnectHooks.KIND, "connect redis://127.0.0.1:6379 (Jedis)");
            assertThat(jedis).containsEntry("count", 4L);
            assertThat((String) jedis.get("caller")).startsWith("acme.RecentViews.jedisView:");
        } finally {
            client.shutdown();
        }
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
            // The probe's callback may run after the caller's wait ends (a future runs its dependents newest first):
            // on a loaded machine its end reads a few ms after the caller's.
            assertThat((Double) brpop.get("maxMs")).isBetween(140.0, reactiveBlockedMs + 20.0);
            assertThat(CallRows.waitForRow(p, "redis", "GET", 31)).containsEntry("count", 31L).containsEntry("errors", 0L)
                    // the call site is read on the caller's thread: on Lettuce's event loop no frame is the application's
                    .doesNotContainEntry("caller", "(unknown)");
            Map<String, Object> blpop = CallRows.waitForRow(p, "redis", "BLPOP", 1);
            assertThat((Double) blpop.get("maxMs")).isBetween(140.0, blockedMs + 20.0);
            assertThat(blpop).containsEntry("slowCount", 1L);
            assertThat(ProbeContext.run(new CallsCommand(), false).text()).contains("SLOW redis").contains("BLPOP");
            redis.del("culprit:lettuce");  // the machine's Redis keeps nothing of the test
        } finally {
            client.shutdown();
        }
    }
}
