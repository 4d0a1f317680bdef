package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The back office's recent-orders list: the newest orders, each with its item count and SKUs.
 *
 * <p>n-plus-one (not one of CASES.md's seeds: the commonest data-access fault there is, kept as a
 * test that the diagnosis generalises): the orders come from one query, then each order's lines
 * from a query of its own, the loop an ORM runs for a lazy association. Every query is fast (an
 * indexed lookup); the scenario lists 100 orders: 101 round trips per request. The fixed twin reads all the lines
 * in one statement ({@code WHERE order_id IN (...)}) and groups them here.
 */
@RestController
public class RecentOrdersController {

    static final int DEFAULT_LIMIT = 40;
    static final int MAX_LIMIT = 200;

    private final Orders orders;
    private final LabMode mode;

    public RecentOrdersController(Orders orders, LabMode mode) {
        this.orders = orders;
        this.mode = mode;
    }

    @GetMapping("/api/orders/recent")
    public List<Summary> recent(@RequestParam(defaultValue = "" + DEFAULT_LIMIT) int limit) {
        List<Orders.Order> latest = orders.latest(Math.max(1, Math.min(MAX_LIMIT, limit)));
        List<Summary> out = new ArrayList<>(latest.size());
        if (mode.faulty(Scenario.N_PLUS_ONE)) {
            for (Orders.Order o : latest) {
                out.add(Summary.of(o, orders.lines(o.id())));
            }
            return out;
        }
        List<Long> ids = latest.stream().map(Orders.Order::id).toList();
        Map<Long, List<Orders.Line>> lines = orders.linesOf(ids);
        for (Orders.Order o : latest) {
            out.add(Summary.of(o, lines.getOrDefault(o.id(), List.of())));
        }
        return out;
    }

    public record Summary(long id, String customerName, long totalCents, int items, List<String> skus) {
        static Summary of(Orders.Order o, List<Orders.Line> lines) {
            return new Summary(o.id(), o.customerName(), o.totalCents(), lines.size(),
                    lines.stream().map(Orders.Line::sku).toList());
        }
    }
}
