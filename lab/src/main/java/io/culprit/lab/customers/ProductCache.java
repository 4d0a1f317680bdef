package io.culprit.lab.customers;

import jakarta.annotation.PreDestroy;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import io.culprit.lab.data.LabData;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * Product names by id, loaded from the database at start: in Redis (127.0.0.1:6379) when
 * {@code --lab.redis=true} and Redis answers, otherwise in process, so the demo needs no Redis.
 */
@Component
public class ProductCache {

    private static final Logger log = LoggerFactory.getLogger(ProductCache.class);
    private static final String PREFIX = "culprit-lab:product:";

    private final Map<Long, String> local = new ConcurrentHashMap<>();
    private final JedisPool redis;

    public ProductCache(LabData seeded, JdbcTemplate jdbc, @Value("${lab.redis:false}") boolean useRedis) {
        jdbc.query("SELECT id, name FROM products", rs -> {
            local.put(rs.getLong(1), rs.getString(2));
        });
        this.redis = useRedis ? connect() : null;
    }

    private JedisPool connect() {
        JedisPoolConfig cfg = new JedisPoolConfig();
        cfg.setMaxTotal(32);
        JedisPool pool = new JedisPool(cfg, "127.0.0.1", 6379, 2_000);
        try (Jedis j = pool.getResource()) {
            local.forEach((id, name) -> j.set(PREFIX + id, name));
            log.info("product cache in Redis at 127.0.0.1:6379 ({} keys)", local.size());
            return pool;
        } catch (RuntimeException e) {
            log.warn("Redis at 127.0.0.1:6379 unavailable ({}); product cache stays in process", e.getMessage());
            pool.close();
            return null;
        }
    }

    public boolean inRedis() {
        return redis != null;
    }

    public String name(long productId) {
        if (redis == null) {
            return local.get(productId);
        }
        try (Jedis j = redis.getResource()) {
            return j.get(PREFIX + productId);
        }
    }

    /** The keys go with the lab: the machine's Redis is shared, and a cache is rebuilt at start anyway. */
    @PreDestroy
    void close() {
        if (redis == null) return;
        if (local.isEmpty()) {
            redis.close();
            return;
        }
        try (Jedis j = redis.getResource()) {
            j.del(local.keySet().stream().map(id -> PREFIX + id).toArray(String[]::new));
        } catch (RuntimeException e) {
            log.warn("could not remove the product keys from Redis: {}", e.getMessage());
        } finally {
            redis.close();
        }
    }
}
