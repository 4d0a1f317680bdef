package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import io.culprit.lab.data.LabData;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A customer's open orders (paid, not yet delivered), for the account page and the support desk:
 * each with its number and total, and their sum.
 *
 * <p>over-fetch (not one of CASES.md's seeds: the {@code repository.findAll().stream().filter(...)}
 * of countless Spring services, kept as a test that the diagnosis generalises): every order of the
 * shop is read ({@link Orders#all}: 2,000 rows joined to their customer, an object built per row)
 * and filtered here to the customer's open ones, a handful. One fast statement per request, but
 * each reads and maps the whole table, so the cost grows with the shop, not with the customer. The
 * fixed twin asks the database for exactly those rows ({@code WHERE customer_id = ? AND status = ?},
 * on the customer_id index).
 */
@RestController
public class OpenOrdersController {

    private final Orders orders;
    private final LabMode mode;

    public OpenOrdersController(Orders orders, LabMode mode) {
        this.orders = orders;
        this.mode = mode;
    }

    @GetMapping("/api/customers/{id}/open-orders")
    public OpenOrders openOrders(@PathVariable long id) {
        List<Orders.Order> open = mode.faulty(Scenario.OVER_FETCH)
                ? orders.all().stream().filter(o -> o.customerId() == id && LabData.OPEN.equals(o.status())).toList()
                : orders.ofCustomer(id, LabData.OPEN);
        List<OpenOrder> out = open.stream().map(o -> new OpenOrder(o.id(), o.number(), o.totalCents())).toList();
        return new OpenOrders(id, out.stream().mapToLong(OpenOrder::totalCents).sum(), out);
    }

    public record OpenOrders(long customerId, long totalCents, List<OpenOrder> orders) {
    }

    public record OpenOrder(long id, long number, long totalCents) {
    }
}
