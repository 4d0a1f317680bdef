package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 49's blind round 20: a parcel-locker service on Jooby and jOOQ over MariaDB, whose
 * slowest statement reads innocently ({@code WHERE p.recipient_phone = ?}) and is slow because its
 * parameter is bound as a number: what the statement's bindings say that its text cannot.
 */
class OutsideJoobyJooqTest {

    @Test
    void aPhoneNumberBoundAsANumberIsTheConversionThatDefeatsTheIndex() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-jooq-phone-bound-as-number"));
        assertThat(f.isProblem()).isTrue();
        assertThat(f.culprit()).contains("`p`.`recipient_phone` = ?");
        assertThat(f.fix()).startsWith("Parameter 1, compared with recipient_phone, is bound as a number")
                .contains("MariaDB compares the two as numbers").contains("String.class");
        Finding fixed = new SlowCallsRule().evaluate(Fixtures.evidence("outside-jooq-phone-bound-as-number-fixed"));
        assertThat(fixed.severity()).isIn(Severity.OK, Severity.INFO);
    }
}
