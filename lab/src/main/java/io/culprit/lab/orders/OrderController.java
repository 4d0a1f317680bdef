package io.culprit.lab.orders;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** The everyday endpoints: read an order (healthy, idle-resource-scan) and place one (row-lock). */
@RestController
public class OrderController {

    private final Orders orders;
    private final PlaceOrderService placeOrder;

    public OrderController(Orders orders, PlaceOrderService placeOrder) {
        this.orders = orders;
        this.placeOrder = placeOrder;
    }

    @GetMapping("/api/orders/{id}")
    public Orders.Order get(@PathVariable long id) {
        return orders.find(id).orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no order " + id));
    }

    @PostMapping("/api/orders")
    @ResponseStatus(HttpStatus.CREATED)
    public PlaceOrderService.Placed place(@RequestBody PlaceOrderService.NewOrder order) {
        return placeOrder.place(order);
    }
}
