package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * log-storm's endpoint: an order's invoice. Half the orders have none yet (odd ids), an expected,
 * frequent outcome signalled by {@link InvoiceMissingException}.
 *
 * <p>log-storm (seed 5): the error path logs at ERROR with the full stack trace (~100 frames
 * through Tomcat and Spring) on every miss, through logback's async appender into the lab's log
 * file. At a few hundred misses per second that is megabytes of stack traces per second: CPU in
 * throwable formatting and an appender queue that backs up. The fixed twin logs one line at WARN
 * without the trace.
 */
@RestController
public class InvoiceController {

    private static final Logger log = LoggerFactory.getLogger(InvoiceController.class);

    private final JdbcTemplate jdbc;
    private final LabMode mode;

    public InvoiceController(JdbcTemplate jdbc, LabMode mode) {
        this.jdbc = jdbc;
        this.mode = mode;
    }

    @GetMapping("/api/orders/{id}/invoice")
    public ResponseEntity<?> invoice(@PathVariable long id) {
        try {
            return ResponseEntity.ok(find(id));
        } catch (InvoiceMissingException e) {
            if (mode.faulty(Scenario.LOG_STORM)) {
                log.error("invoice lookup failed for order {}", id, e);
            } else {
                log.warn("no invoice yet for order {}", id);
            }
            return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new Missing(id, "no invoice yet"));
        }
    }

    private Invoice find(long orderId) {
        List<Invoice> found = jdbc.query("SELECT order_id, number, amount_cents FROM invoices WHERE order_id = ?",
                (rs, i) -> new Invoice(rs.getLong(1), rs.getString(2), rs.getLong(3)), orderId);
        if (found.isEmpty()) {
            throw new InvoiceMissingException(orderId);
        }
        return found.get(0);
    }

    public record Invoice(long orderId, String number, long amountCents) {
    }

    public record Missing(long orderId, String reason) {
    }

    static final class InvoiceMissingException extends RuntimeException {
        InvoiceMissingException(long orderId) {
            super("invoice of order " + orderId + " not found");
        }
    }
}
