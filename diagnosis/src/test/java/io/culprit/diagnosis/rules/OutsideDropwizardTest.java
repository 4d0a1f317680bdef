package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 45's blind Dropwizard service (Jetty 12, Jersey, JDBI 3 on Tomcat JDBC's pool, Hibernate
 * Validator, a shaded jar): what the rules say on its faults and their fixes.
 */
class OutsideDropwizardTest {

    @Test
    void aValidatorFactoryPerDraftIsTheConstructionAndExplainsTheValidation() {
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-dropwizard-validator-per-draft"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.acme.depot.resources.OrderDraftResource.draft:76");
        assertThat(f.summary()).contains("1 new org.hibernate.validator.internal.engine.ValidatorFactoryImpl per request")
                .contains("starts without the constraint metadata it introspects for each bean class")
                .contains("run in Hibernate Validator under com.acme.depot.resources.OrderDraftResource");
        assertThat(f.explains()).contains("validation-cpu");
        // What to share, as the application reaches it: the factory's API, not Hibernate's internal class.
        assertThat(f.fix()).startsWith("Build one ValidatorFactory (Validation.buildDefaultValidatorFactory(),");
        assertThat(new ConstructionRule().evaluate(Fixtures.evidence("outside-dropwizard-validator-per-draft-fixed")).isProblem()).isFalse();
    }

    @Test
    void withoutAConstructionRowTheProfileShowsTheFactoryAndItsColdMetadata() {
        // Recorded by an agent that did not count validator factories, which listed every package of the shaded jar as the application's.
        Finding f = new ConstructionRule().evaluate(Fixtures.evidence("outside-dropwizard-validator-per-draft-old-agent"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.acme.depot.resources.OrderDraftResource.draft");
        assertThat(f.summary()).contains("new org.hibernate.validator.internal.engine.ValidatorFactoryImpl built on the request path")
                .contains("seen in the CPU profile").contains("run in Hibernate Validator under com.acme.depot.resources.OrderDraftResource");
        assertThat(f.explains()).contains("validation-cpu");
        // Jetty's reserved threads parked for their next job, kept by that agent: idle, not contention.
        assertThat(new LockContentionRule().evaluate(Fixtures.evidence("outside-dropwizard-validator-per-draft-old-agent")).isProblem()).isFalse();
    }

    @Test
    void hibernateValidatorsMetadataIsNotBeanCreation() {
        // createBeanMetaData once read as "bean creation in 66 % of CPU samples" with no container at all.
        assertThat(new PrototypeBeansRule().evaluate(Fixtures.evidence("outside-dropwizard-validator-per-draft")).isProblem()).isFalse();
        assertThat(PrototypeBeansRule.isCreation("org.hibernate.validator.internal.metadata.BeanMetaDataManagerImpl.createBeanMetaData:216")).isFalse();
        assertThat(PrototypeBeansRule.isCreation("com.fasterxml.jackson.databind.deser.BeanDeserializerFactory.createBeanDeserializer:115")).isFalse();
        assertThat(PrototypeBeansRule.isCreation("org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.createBean:522")).isTrue();
        assertThat(PrototypeBeansRule.isCreation("org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.doCreateBean")).isTrue();
    }

    @Test
    void linesAndProductsReadPerOrderThroughJdbiAreChatty() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-dropwizard-lines-per-order"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).startsWith("com.acme.depot.resources.OrderHistoryResource.loadPerOrder:66");
        assertThat(f.summary()).contains("runs 90 times per request").contains("CatalogDao.findById");
        // Its statements are selects behind a comment: their waits for a busy server are no row lock.
        assertThat(new DbRowLockRule().evaluate(Fixtures.evidence("outside-dropwizard-lines-per-order")).isProblem()).isFalse();
        assertThat(CallShape.sqlBody("/* CatalogDao.findById */ SELECT id FROM products WHERE id = ?")).isEqualTo("SELECT id FROM products WHERE id = ?");
        assertThat(CallShape.sqlBody("-- nightly\n/* a */ /* b */ update stock set n = n - 1")).isEqualTo("update stock set n = n - 1");
        assertThat(CallShape.sqlBody("/* unterminated")).isEqualTo("/* unterminated");
    }
}
