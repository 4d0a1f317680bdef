package acme;

import io.vertx.core.Future;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.Response;

/** Application code outside culprit's packages that asks the Vert.x Redis client, so a call site can name it. */
public final class PriceLookups {

    private PriceLookups() { }

    public static Future<Response> price(RedisAPI redis, String key) {
        return redis.get(key);
    }
}
