package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Redis commands through the real Vert.x Redis client (its pooled client) against the Redis
 * server on 127.0.0.1:6379: each command is counted by name and timed from its write to its
 * reply, at the call site of the code that sent it. The client is used once before the probes
 * start (only loaded classes are woven).
 */
class VertxRedisProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void commandsAreTimedFromTheirWriteToTheirReply() throws Exception {
        assumeTrue(CallRows.redisUp(), "no Redis on 127.0.0.1:6379");
        Vertx vertx = Vertx.vertx();
        Redis client = Redis.createClient(vertx, "redis://127.0.0.1:6379");
        RedisAPI redis = RedisAPI.api(client);
        try {
            await(redis.set(List.of("culprit:vertx:probe", "1")));  // loads the client's classes before the weave
            await(redis.get("culprit:vertx:probe"));
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(VertxRedisHooks.CONNECTION + ".doSend"))
                    .anyMatch(w -> w.startsWith(VertxRedisHooks.QUEUE + ".poll"));
            // From an event loop, as a Vert.x handler sends them: the client writes at once, on the caller's thread.
            for (int i = 0; i < 10; i++) await(onLoop(vertx, () -> acme.PriceLookups.price(redis, "culprit:vertx:probe")));
            for (int i = 0; i < 5; i++) await(redis.set(List.of("culprit:vertx:probe", String.valueOf(i))));
            Map<String, Object> get = CallRows.waitForRow(p, "redis", "GET", 10);
            assertThat(get).containsEntry("count", 10L).containsEntry("reactiveClient", "vertx-redis-client");
            assertThat((Double) get.get("maxMs")).isGreaterThan(0.0);
            // Named where the application asked the client, though the pooled client writes from its pool's callback.
            assertThat((String) get.get("caller")).startsWith("acme.PriceLookups.price:");
            assertThat(CallRows.waitForRow(p, "redis", "SET", 5)).containsEntry("count", 5L);
        } finally {
            await(redis.del(List.of("culprit:vertx:probe")));
            client.close();
            await(vertx.close());
        }
    }

    private static <T> Future<T> onLoop(Vertx vertx, java.util.function.Supplier<Future<T>> send) {
        io.vertx.core.Promise<T> done = io.vertx.core.Promise.promise();
        vertx.getOrCreateContext().runOnContext(v -> send.get().onComplete(done));
        return done.future();
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }
}
