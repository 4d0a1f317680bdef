package io.culprit.agent.probe;

import java.util.List;

/**
 * Redis connections opened, as calls of kind {@code redis-connect}: Lettuce's standalone connects
 * (every {@code RedisClient.connect}/{@code connectAsync} overload, and Spring Data Redis's
 * connection providers, end in the private {@code connectStandaloneAsync}) and Jedis's socket
 * connects ({@code DefaultJedisSocketFactory.createSocket}, which a {@code new Jedis(...)} runs on its first
 * command and a pool when it grows; {@code Connection.connect} itself runs before every command). A client that connects once, or a pool, records a handful; one per
 * command records as many as there are commands. A blind Spring Boot service (session 46) turned
 * Lettuce's connection sharing off without a pool, so every template operation opened, used and
 * closed a connection of its own (4 a request, 3.4× its throughput), and read "no root cause
 * found": the commands themselves took a millisecond. The Lettuce connect is timed to its
 * initiation only (the connection completes on the event loop): the count is the evidence.
 */
final class RedisConnectHooks {
    static final String KIND = "redis-connect";
    static final String LETTUCE_CLIENT = "io.lettuce.core.RedisClient";
    static final String JEDIS_SOCKETS = "redis.clients.jedis.DefaultJedisSocketFactory";

    private RedisConnectHooks() { }

    static List<Hook> hooks(CallProbe calls) {
        return List.of(
                new Hook(LETTUCE_CLIENT, "connectStandaloneAsync", "(Lio/lettuce/core/codec/RedisCodec;Lio/lettuce/core/RedisURI;",
                        Hook.TIMED | Hook.ARG1) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object codec, Object uri, Object returned, Throwable thrown) {
                        long end = System.nanoTime();
                        String target = "connect redis://" + Reflect.call(uri, "getHost") + ":" + (long) Reflect.number(uri, "getPort") + " (Lettuce)";
                        calls.record(end, KIND, target, target, start, thrown);
                    }
                },
                new Hook(JEDIS_SOCKETS, "createSocket", "()", Hook.TIMED | Hook.SELF) {
                    @Override
                    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                        long end = System.nanoTime();
                        String target = "connect redis://" + Reflect.call(self, "getHostAndPort") + " (Jedis)";
                        calls.record(end, KIND, target, target, start, thrown);
                    }
                });
    }
}
