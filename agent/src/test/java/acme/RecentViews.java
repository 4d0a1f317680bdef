package acme;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.clients.jedis.Jedis;

/** Application code that opens a Redis connection for every command, with either client (no pool, nothing shared). */
public final class RecentViews {

    private RecentViews() { }

    public static String lettuceView(RedisClient client, String key) {
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return c.sync().get(key);
        }
    }

    public static String jedisView(String key) {
        try (Jedis jedis = new Jedis("127.0.0.1", 6379)) {
            return jedis.get(key);
        }
    }
}
