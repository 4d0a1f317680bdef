package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import io.culprit.lab.outbound.PaymentClient;
import java.sql.PreparedStatement;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places an order in one transaction: number it from the shared counter row, price the lines,
 * insert, and authorize the payment with a remote call.
 *
 * <p>row-lock (seed 4): the counter UPDATE comes first, so the hot row stays locked while the rest
 * of the transaction (queries, inserts, the payment round trip) runs, and every concurrent order
 * queues behind it. The fixed twin runs the same statements but increments the counter last, so
 * the lock is held only for the final statement and the commit.
 */
@Service
public class PlaceOrderService {

    private final JdbcTemplate jdbc;
    private final PaymentClient payments;
    private final LabMode mode;

    public PlaceOrderService(JdbcTemplate jdbc, PaymentClient payments, LabMode mode) {
        this.jdbc = jdbc;
        this.payments = payments;
        this.mode = mode;
    }

    @Transactional
    public Placed place(NewOrder order) {
        if (order.items() == null || order.items().isEmpty()) {
            throw new IllegalArgumentException("an order needs items");
        }
        boolean lockFirst = mode.faulty(Scenario.ROW_LOCK);
        long number = lockFirst ? nextNumber() : 0;
        String tier = jdbc.queryForObject("SELECT tier FROM customers WHERE id = ?", String.class, order.customerId());
        long total = 0;
        for (Item item : order.items()) {
            Integer price = jdbc.queryForObject("SELECT price_cents FROM products WHERE id = ?", Integer.class, item.productId());
            total += (long) price * item.qty();
        }
        if ("gold".equals(tier)) {
            total = total * 95 / 100;
        }
        long id = insertOrder(order.customerId(), total, number);
        for (Item item : order.items()) {
            jdbc.update("INSERT INTO order_lines (order_id, product_id, qty, price_cents)"
                    + " SELECT ?, id, ?, price_cents FROM products WHERE id = ?", id, item.qty(), item.productId());
        }
        String auth = payments.authorize(id, total);
        jdbc.update("UPDATE orders SET status = 'PAID' WHERE id = ?", id);
        if (!lockFirst) {
            number = nextNumber();
            jdbc.update("UPDATE orders SET number = ? WHERE id = ?", number, id);
        }
        return new Placed(id, number, total, auth);
    }

    private long insertOrder(long customerId, long total, long number) {
        GeneratedKeyHolder key = new GeneratedKeyHolder();
        jdbc.update(con -> {
            PreparedStatement ps = con.prepareStatement(
                    "INSERT INTO orders (customer_id, status, total_cents, number, created_at) VALUES (?,?,?,?,?)",
                    new String[] {"id"});
            ps.setLong(1, customerId);
            ps.setString(2, "NEW");
            ps.setLong(3, total);
            ps.setLong(4, number);
            ps.setLong(5, System.currentTimeMillis());
            return ps;
        }, key);
        return key.getKey().longValue();
    }

    /** The hot row: one counter shared by every order. Locked from here until commit. */
    private long nextNumber() {
        jdbc.update("UPDATE counters SET val = val + 1 WHERE name = 'orders'");
        return jdbc.queryForObject("SELECT val FROM counters WHERE name = 'orders'", Long.class);
    }

    public record NewOrder(long customerId, List<Item> items) {
    }

    public record Item(long productId, int qty) {
    }

    public record Placed(long id, long number, long totalCents, String authorization) {
    }
}
