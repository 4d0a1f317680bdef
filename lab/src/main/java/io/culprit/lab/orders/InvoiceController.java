package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * log-storm's endpoint: an order's invoice. Half the orders have none yet (odd ids), an expected,
 * frequent outcome signalled by {@link Invoices.InvoiceMissingException}.
 *
 * <p>log-storm (seed 5): every miss is logged at ERROR with the full stack trace and its cause
 * (~75 frames through Tomcat, Spring MVC, the transactional proxy and Spring JDBC), once by
 * {@link Invoices} and again here, through a synchronous file appender, as Spring Boot's default
 * file logging is: the request thread builds the throwable proxies, formats ~15 KB of traces and
 * writes them under the appender's lock. The fixed twin logs one line at WARN without the trace.
 */
@RestController
public class InvoiceController {

    private static final Logger log = LoggerFactory.getLogger(InvoiceController.class);

    private final Invoices invoices;
    private final LabMode mode;

    public InvoiceController(Invoices invoices, LabMode mode) {
        this.invoices = invoices;
        this.mode = mode;
    }

    @GetMapping("/api/orders/{id}/invoice")
    public ResponseEntity<?> invoice(@PathVariable long id) {
        try {
            return ResponseEntity.ok(invoices.find(id));
        } catch (Invoices.InvoiceMissingException e) {
            if (mode.faulty(Scenario.LOG_STORM)) {
                log.error("invoice lookup failed for order {}", id, e);
            } else {
                log.warn("no invoice yet for order {}", id);
            }
            return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new Missing(id, "no invoice yet"));
        }
    }

    public record Missing(long orderId, String reason) {
    }
}
