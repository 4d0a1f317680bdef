package io.culprit.lab.orders;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** gc-pool-starvation's endpoint. */
@RestController
public class StatementController {

    private final StatementService statements;

    public StatementController(StatementService statements) {
        this.statements = statements;
    }

    @GetMapping("/api/orders/{id}/statement")
    public StatementService.Statement statement(@PathVariable long id) {
        return statements.render(id);
    }
}
