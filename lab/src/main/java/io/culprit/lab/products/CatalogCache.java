package io.culprit.lab.products;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import io.culprit.lab.data.LabData;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** In-process catalog cache: each product's attributes, loaded once at start. A getter is a map read. */
@Component
public class CatalogCache {

    private final Map<String, String> values = new ConcurrentHashMap<>();

    public CatalogCache(LabData seeded, JdbcTemplate jdbc) {
        jdbc.query("SELECT id, sku, name, price_cents, stock FROM products", rs -> {
            long id = rs.getLong(1);
            values.put("sku:" + id, rs.getString(2));
            values.put("name:" + id, rs.getString(3));
            values.put("price:" + id, Integer.toString(rs.getInt(4)));
            values.put("stock:" + id, Integer.toString(rs.getInt(5)));
        });
    }

    public String get(String attribute, long productId) {
        return values.get(attribute + ":" + productId);
    }
}
