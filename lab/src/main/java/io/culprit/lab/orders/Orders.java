package io.culprit.lab.orders;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.stereotype.Repository;

/** Plain JDBC access to orders and their lines. */
@Repository
public class Orders {

    /** An order's columns, its customer's name joined. */
    private static final String ORDER_COLUMNS = "SELECT o.id, o.customer_id, c.name, o.status, o.total_cents, o.number"
            + " FROM orders o JOIN customers c ON c.id = o.customer_id";

    private final JdbcTemplate jdbc;

    public Orders(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * The order, then its lines once the first query has given its connection back: reading the
     * lines inside the row mapper would ask the pool for a second connection while holding one,
     * and with more request threads than connections every connection can end up held by a thread
     * waiting for another (a pool deadlock that only Hikari's 30 s timeout breaks).
     */
    public Optional<Order> find(long id) {
        List<Order> found = jdbc.query("SELECT o.id, o.customer_id, c.name, o.status, o.total_cents, o.number"
                        + " FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?",
                (rs, i) -> new Order(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                        rs.getLong(6), List.of()), id);
        return found.stream().findFirst().map(o -> o.withLines(lines(o.id())));
    }

    public List<Line> lines(long orderId) {
        return jdbc.query("SELECT l.product_id, p.sku, p.name, l.qty, l.price_cents FROM order_lines l"
                        + " JOIN products p ON p.id = l.product_id WHERE l.order_id = ? ORDER BY l.id",
                (rs, i) -> new Line(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getInt(5)), orderId);
    }

    /** The newest {@code limit} orders, without their lines. */
    public List<Order> latest(int limit) {
        return jdbc.query("SELECT o.id, o.customer_id, c.name, o.status, o.total_cents, o.number"
                        + " FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id DESC LIMIT ?",
                (rs, i) -> new Order(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                        rs.getLong(6), List.of()), limit);
    }

    /** Every order of the shop, oldest first, without lines: the repository's {@code findAll()}. */
    public List<Order> all() {
        return jdbc.query(ORDER_COLUMNS + " ORDER BY o.id", Orders::order);
    }

    /** The orders of one customer in one status, oldest first, without lines. */
    public List<Order> ofCustomer(long customerId, String status) {
        return jdbc.query(ORDER_COLUMNS + " WHERE o.customer_id = ? AND o.status = ? ORDER BY o.id", Orders::order,
                customerId, status);
    }

    private static Order order(ResultSet rs, int row) throws SQLException {
        return new Order(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4), rs.getLong(5), rs.getLong(6),
                List.of());
    }

    /** The lines of all {@code orderIds} in one statement, by order, each order's in line order. */
    public Map<Long, List<Line>> linesOf(List<Long> orderIds) {
        Map<Long, List<Line>> byOrder = new HashMap<>();
        if (orderIds.isEmpty()) {
            return byOrder;
        }
        String in = String.join(",", Collections.nCopies(orderIds.size(), "?"));
        jdbc.query("SELECT l.order_id, l.product_id, p.sku, p.name, l.qty, l.price_cents FROM order_lines l"
                + " JOIN products p ON p.id = l.product_id WHERE l.order_id IN (" + in + ") ORDER BY l.order_id, l.id",
                (RowCallbackHandler) rs -> byOrder.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>())
                        .add(new Line(rs.getLong(2), rs.getString(3), rs.getString(4), rs.getInt(5), rs.getInt(6))),
                orderIds.toArray());
        return byOrder;
    }

    public record Order(long id, long customerId, String customerName, String status, long totalCents, long number,
                        List<Line> lines) {
        Order withLines(List<Line> l) {
            return new Order(id, customerId, customerName, status, totalCents, number, l);
        }
    }

    public record Line(long productId, String sku, String productName, int qty, int priceCents) {
    }
}
