package io.culprit.lab.orders;

import io.culprit.lab.LabMode;
import io.culprit.lab.Scenario;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RestController;

/**
 * binding-exceptions' endpoint: the order search. The web front end sends its whole context with
 * every search: ~34 parameters in bracket notation ({@code ctx[device]}, {@code utm[source]}, ...)
 * that {@link OrderSearchForm} has no property for.
 *
 * <p>binding-exceptions (seed 5): {@code @ModelAttribute} hands them all to Spring's DataBinder.
 * For each nested path the BeanWrapper throws NotReadablePropertyException, wraps it in a
 * NotWritablePropertyException, and the binder swallows it because unknown fields are ignored:
 * dozens of exceptions with filled-in stack traces per request, invisible in logs. The fixed twin
 * declares the form's fields as the allowed ones, so the binder drops the rest before binding.
 */
@RestController
public class OrderSearchController {

    private final JdbcTemplate jdbc;
    private final LabMode mode;

    public OrderSearchController(JdbcTemplate jdbc, LabMode mode) {
        this.jdbc = jdbc;
        this.mode = mode;
    }

    @InitBinder("form")
    void restrictFields(WebDataBinder binder) {
        if (!mode.faulty(Scenario.BINDING_EXCEPTIONS)) {
            binder.setAllowedFields("status", "page", "size");
        }
    }

    @GetMapping("/api/orders/search")
    public List<Long> search(@ModelAttribute("form") OrderSearchForm form) {
        return jdbc.queryForList("SELECT id FROM orders WHERE status = ? ORDER BY id LIMIT ? OFFSET ?", Long.class,
                form.getStatus(), form.getSize(), form.getPage() * form.getSize());
    }
}
