package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 36's service outside the lab: factories built per request that look their provider up
 * through the service loader. A Bean Validation ValidatorFactory read as the ORM (Hibernate
 * Validator shares Hibernate's package root); a ScriptEngineManager was named, but under the
 * class loading it causes.
 */
class OutsideFactoriesTest {

    @Test
    void aValidatorFactoryPerRequestIsRepeatedConstructionNotTheOrm() {
        Evidence ev = Fixtures.evidence("outside-validator-factory-per-request");
        Finding f = new ConstructionRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("shop.Checks.validate");
        // The factory's own set-up (33 % of CPU samples) and, since session 45, the new factory's metadata under the same class.
        assertThat(f.summary()).startsWith("new org.hibernate.validator.internal.engine.ValidatorFactoryImpl built on the request path"
                + " by shop.Checks.validate").contains("52 % of CPU samples run in Hibernate Validator under shop.Checks.");
        assertThat(f.explains()).contains("hot-path-classloading", "caught-exceptions");
        Finding orm = new OrmCpuRule().evaluate(ev);
        assertThat(orm.isProblem()).isFalse();
        assertThat(orm.summary()).isEqualTo("the ORM's own work (Hibernate's, MyBatis's; no JDBC driver below it) in 0 % of CPU samples.");
        assertThat(new ConstructionRule().evaluate(Fixtures.evidence("outside-validator-factory-per-request-fixed")).isProblem()).isFalse();
    }

    @Test
    void aScriptEngineManagerPerRequestIsTheCauseOfItsServiceScans() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-script-engine-per-request"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).startsWith("23 % of CPU samples create factories (most ScriptEngineManager.<init>), called from shop.Checks.rule");
        assertThat(f.explains()).contains("hot-path-classloading");
    }
}
