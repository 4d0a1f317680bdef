package io.culprit.lab.customers;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * prototype-bean's endpoint: a customer's feed of the 200 latest purchases in the shop, each with
 * its product's display name.
 *
 * <p>prototype-bean (seed 4): the name of every item is resolved through a fresh
 * {@code getBean(ProductLookup.class)}, a prototype, so each request creates 200 beans. The fixed
 * twin fetches one lookup per request and reuses it.
 */
@RestController
public class CustomerFeedController {

    static final int FEED_SIZE = 200;

    private final JdbcTemplate jdbc;
    private final BeanFactory beans;
    private final LabMode mode;

    public CustomerFeedController(JdbcTemplate jdbc, BeanFactory beans, LabMode mode) {
        this.jdbc = jdbc;
        this.beans = beans;
        this.mode = mode;
    }

    @GetMapping("/api/customers/{id}/feed")
    public Feed feed(@PathVariable long id) {
        String name = jdbc.queryForObject("SELECT name FROM customers WHERE id = ?", String.class, id);
        List<Long> productIds = jdbc.queryForList(
                "SELECT product_id FROM order_lines ORDER BY id DESC LIMIT " + FEED_SIZE, Long.class);
        boolean perItem = mode.faulty(Scenario.PROTOTYPE_BEAN);
        ProductLookup shared = perItem ? null : beans.getBean(ProductLookup.class);
        List<String> items = new ArrayList<>(productIds.size());
        for (long pid : productIds) {
            ProductLookup lookup = perItem ? beans.getBean(ProductLookup.class) : shared;
            items.add(lookup.displayName(pid));
        }
        return new Feed(id, name, items);
    }

    public record Feed(long customerId, String customerName, List<String> items) {
    }
}
