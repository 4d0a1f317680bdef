package io.culprit.agent.probe;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Redis commands through the Vert.x Redis client (5.x; Quarkus' Redis client rides on it). A
 * command is written by its connection's {@code RedisStandaloneConnection.doSend(Request, Promise)},
 * which queues the command's promise in the connection's {@code waiting} queue; the reply, decoded
 * on the connection's event loop, takes the promise from the head of that queue
 * ({@code ArrayQueue.poll()}, a queue only this client uses) and completes it, and a closing
 * connection polls the rest to fail them. So a command is timed from doSend's entry to the poll
 * that returns its promise, the start carried in a {@link PendingCalls} table keyed by the promise,
 * and named by its command (GET, HSET), whose call site is taken where the application asked the
 * client ({@code BaseRedisClient.send}). The pooled client's wait for a connection comes before
 * doSend and is not the command's. A batch ({@code doBatch}) is not timed; nor is a reply's error
 * told from a success.
 */
final class VertxRedisHooks {

    static final String CONNECTION = "io.vertx.redis.client.impl.RedisStandaloneConnection";
    static final String QUEUE = "io.vertx.redis.client.impl.ArrayQueue";
    static final String CLIENT = "io.vertx.redis.client.impl.BaseRedisClient";

    private final CallProbe calls;
    private final PendingCalls pending = new PendingCalls();
    private final Getter command = new Getter("command");
    /** Command (the client's interned constants) → its name in capitals, as the other Redis clients' rows name it. */
    private final ConcurrentHashMap<Object, String> names = new ConcurrentHashMap<>();

    VertxRedisHooks(CallProbe calls) {
        this.calls = calls;
    }

    List<Hook> hooks() {
        return List.of(
                // The pooled client writes once a connection is lent, often from the pool's callback, where the
                // stack holds no application frame: a command's stats, and so its call site, are made here first.
                new Hook(CLIENT, "send", "(Lio/vertx/redis/client/Request;)", Hook.ENTER | Hook.ARG0) {
                    @Override
                    public long probeEnter(int id, Object self, Object request) {
                        calls.stats("redis", name(command.call(request)));
                        return 0L;
                    }
                },
                // The promise is the second argument, which only an exit reads; the reply cannot be handled
                // before the exit on the event loop that would handle it, and a caller elsewhere is rare.
                new Hook(CONNECTION, "doSend", "(Lio/vertx/redis/client/Request;Lio/vertx/core/Promise;)", Hook.TIMED | Hook.ARG0 | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object request, Object promise, Object returned, Throwable thrown) {
                        if (thrown != null || promise == null) return;
                        // Here, on the caller's thread, so a command's first call gets its call site.
                        CallStats stats = calls.stats("redis", name(command.call(request)));
                        if (stats.reactiveClient == null) stats.reactiveClient = "vertx-redis-client";
                        pending.put(promise, start, stats);
                    }
                },
                new Hook(QUEUE, "poll", "()", Hook.EXIT | Hook.RETURNED) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object promise, Throwable thrown) {
                        calls.endPending(pending, promise, System.nanoTime(), null);
                    }
                });
    }

    private String name(Object command) {
        if (command == null) return "(command)";
        String n = names.get(command);
        if (n == null) {
            n = command.toString().toUpperCase(Locale.ROOT);
            if (names.size() < 1_024) names.putIfAbsent(command, n);
        }
        return n;
    }
}
