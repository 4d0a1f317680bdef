package io.culprit.lab.orders;

import io.culprit.lab.outbound.InventoryClient;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** converter-rebuild's endpoint: an order's lines with live stock, one inventory call per line. */
@RestController
public class AvailabilityController {

    private final Orders orders;
    private final InventoryClient inventory;

    public AvailabilityController(Orders orders, InventoryClient inventory) {
        this.orders = orders;
        this.inventory = inventory;
    }

    @GetMapping("/api/orders/{id}/availability")
    public Availability availability(@PathVariable long id) {
        return new Availability(id, orders.lines(id).stream()
                .map(l -> new LineStock(l.sku(), l.qty(), inventory.level(l.sku()) >= l.qty()))
                .toList());
    }

    public record Availability(long orderId, List<LineStock> lines) {
    }

    public record LineStock(String sku, int qty, boolean inStock) {
    }
}
