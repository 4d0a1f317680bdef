package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import io.culprit.model.Table;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Session 39's blind booking service: Bean Validation on a cached return value read "no root
 * cause"; a Spring cache switched off read "slow calls"; the others named the right place with a
 * generic cure.
 */
class OutsideBookingServiceTest {

    private static Diagnosis.Result run(String fixture) {
        return Diagnosis.run(CaseFile.open(Fixtures.dir(fixture)));
    }

    @Test
    void aPageReadThroughACollectionFetchIsPagedInMemory() {
        Finding f = run("outside-paged-collection-fetch").top().orElseThrow();
        assertThat(f.summary()).contains("a page read through a collection fetch, which Hibernate runs unpaged and slices in memory");
        assertThat(f.fix()).startsWith("Page the ids, then fetch");
        Table calls = new Table("calls", List.of("kind", "target", "caller"), List.of(
                Map.of("kind", "sql", "target", "select o.id from orders o join order_line l on o.id=l.order_id order by o.id limit ?", "caller", "a.B.m:1"),
                Map.of("kind", "sql", "target", "select count(o.id) from orders o", "caller", "a.B.m:2")));
        assertThat(CallShape.pagedInMemory(calls, 0)).as("a LIMIT: paged in the database").isFalse();
    }

    @Test
    void aSelectForUpdateOfTheParentRowIsToldToLockLess() {
        Finding f = run("outside-event-row-for-update").top().orElseThrow();
        assertThat(f.fix()).startsWith("Lock less than the row every request needs").contains("conditional UPDATE");
    }

    @Test
    void serializationTheApplicationDoesItselfIsToldApartFromTheResponse() {
        Finding f = run("outside-debug-argument-serialized").top().orElseThrow();
        assertThat(f.summary()).contains("the application serializes it itself (61 % of CPU samples, the response's converter 2.0 %)");
        assertThat(f.fix()).contains("A log argument is evaluated even when its level is off");
    }

    @Test
    void validationOfACachedReturnValueIsNamedWithItsBeanMethod() {
        Finding f = run("outside-validated-return-value").top().orElseThrow();
        assertThat(f.summary()).contains("most of it validating io.tixly.booking.catalog.ValidatedSeatMapCatalog.seatMap's return value"
                + " through Spring's method validation").contains("cascades (@Valid)");
        assertThat(f.fix()).startsWith("Validate data once, where it enters");
        assertThat(ValidationCpuRule.validated(new String[] {"a.Web.get:3", "a.Catalog$$SpringCGLIB$$0.map",
                "org.springframework.validation.beanvalidation.MethodValidationInterceptor.invoke", "org.hibernate.validator.X.y"}))
                .isEqualTo("a.Catalog.map");
    }

    @Test
    void logbacksPackagingDataIsNamed() {
        Finding f = run("outside-logback-packaging-data").top().orElseThrow();
        assertThat(f.culprit()).startsWith("logback's packagingData");
        assertThat(f.fix()).startsWith("Turn packaging data off");
    }

    @Test
    void topologyDeclaredPerMessageIsNamed() {
        Finding f = run("outside-topology-per-message").top().orElseThrow();
        assertThat(f.summary()).contains("the wait is in ChannelN.queueBind: broker topology set up per request");
        assertThat(f.fix()).startsWith("Declare queues, exchanges, bindings and long-lived consumers once");
    }

    @Test
    void aCacheThatMissesOnEveryRequestExplainsTheSlowCallsUnderIt() {
        Finding f = run("outside-cache-type-none").top().orElseThrow();
        assertThat(f.summary()).contains("its calls run 1 time(s) per request, 80 % of request time: a Spring cache that missed on nearly every request");
        assertThat(f.fix()).contains("spring.cache.type");
        assertThat(f.explains()).contains("slow-calls");
    }
}
