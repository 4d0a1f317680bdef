package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Invoice lookups, behind a transactional service proxy as in most Spring services. A missing
 * invoice surfaces the way Spring JDBC reports it (EmptyResultDataAccessException from
 * queryForObject), wrapped in the domain's {@link InvoiceMissingException}: the trace a real
 * service logs has the whole Tomcat/Spring MVC/proxy/JDBC stack plus its cause.
 *
 * <p>log-storm (seed 5: "every error logged with its full stack trace"): the service logs the
 * miss at ERROR with the trace before rethrowing it, and the controller logs it again, the
 * log-and-rethrow habit that doubles every trace. The fixed twin does not log here.
 */
@Service
public class Invoices {

    private static final Logger log = LoggerFactory.getLogger(Invoices.class);

    private final JdbcTemplate jdbc;
    private final LabMode mode;

    public Invoices(JdbcTemplate jdbc, LabMode mode) {
        this.jdbc = jdbc;
        this.mode = mode;
    }

    @Transactional(readOnly = true)
    public Invoice find(long orderId) {
        try {
            return jdbc.queryForObject("SELECT order_id, number, amount_cents FROM invoices WHERE order_id = ?",
                    (rs, i) -> new Invoice(rs.getLong(1), rs.getString(2), rs.getLong(3)), orderId);
        } catch (EmptyResultDataAccessException e) {
            InvoiceMissingException missing = new InvoiceMissingException(orderId, e);
            if (mode.faulty(Scenario.LOG_STORM)) {
                log.error("invoice query failed for order {}", orderId, missing);
            }
            throw missing;
        }
    }

    public record Invoice(long orderId, String number, long amountCents) {
    }

    /** An order without an invoice yet: an expected, frequent outcome (odd order ids). */
    public static final class InvoiceMissingException extends RuntimeException {
        InvoiceMissingException(long orderId, Throwable cause) {
            super("invoice of order " + orderId + " not found", cause);
        }
    }
}
