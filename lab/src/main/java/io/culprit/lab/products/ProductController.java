package io.culprit.lab.products;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * timer-lock's endpoint: a product card assembled from four catalog attributes.
 *
 * <p>timer-lock (seed 5): each attribute is read through a Hystrix command (4 per request), so
 * every request registers and cancels 4 timeout listeners behind HystrixTimer's single executor
 * lock; under concurrency the threads park on it. The fixed twin reads the local cache directly:
 * a map read needs no circuit breaker.
 */
@RestController
public class ProductController {

    private static final String[] ATTRIBUTES = {"sku", "name", "price", "stock"};

    private final CatalogCache cache;
    private final LabMode mode;

    public ProductController(CatalogCache cache, LabMode mode) {
        this.cache = cache;
        this.mode = mode;
    }

    @GetMapping("/api/products/{id}")
    public Product product(@PathVariable long id) {
        boolean guarded = mode.faulty(Scenario.TIMER_LOCK);
        String[] v = new String[ATTRIBUTES.length];
        for (int i = 0; i < ATTRIBUTES.length; i++) {
            v[i] = guarded ? new CatalogCommand(cache, ATTRIBUTES[i], id).execute() : cache.get(ATTRIBUTES[i], id);
        }
        if (v[0] == null) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no product " + id);
        }
        return new Product(id, v[0], v[1], Integer.parseInt(v[2]), Integer.parseInt(v[3]));
    }

    public record Product(long id, String sku, String name, int priceCents, int stock) {
    }
}
