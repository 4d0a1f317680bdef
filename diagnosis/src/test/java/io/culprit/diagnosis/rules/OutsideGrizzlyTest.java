package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 46's blind Jersey service on Grizzly (jOOQ on MariaDB, no request probe for its server):
 * what the rules say on its faults and their fixes.
 */
class OutsideGrizzlyTest {

    @Test
    void callsAreWeighedOverTheLoadsRequestsWhenNoRequestProbeSawAny() {
        Finding f = new ChattyCallsRule().evaluate(Fixtures.evidence("outside-grizzly-autocommit-inserts"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("runs 40 times per request").doesNotContain("share of request time unknown")
                .containsPattern("\\d+ % of request time");
        assertThat(new ChattyCallsRule().evaluate(Fixtures.evidence("outside-grizzly-autocommit-inserts-fixed")).isProblem()).isFalse();
    }

    @Test
    void anOrderedSelectWithoutLimitWhoseRepliesAreLargeIsAskedForItsFirstRows() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-grizzly-large-unlimited-read"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.summary()).contains("called from com.parcelhub.core.TrackingQueries.lastScanAt")
                .contains("each reply is large").contains("orders every matching row and has no LIMIT");
        assertThat(f.fix()).startsWith("Ask the database for the rows the code uses").contains("limit(1).fetchOne()");
        assertThat(new SlowCallsRule().evaluate(Fixtures.evidence("outside-grizzly-large-unlimited-read-fixed")).isProblem()).isFalse();
    }

    @Test
    void aFlushAfterEveryRowIsTheExportersOwnCost() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-grizzly-flush-per-row"));
        assertThat(f.culprit()).isEqualTo("com.parcelhub.core.ManifestExporter.departures");
        assertThat(f.summary()).contains("its call to java.io.BufferedWriter.flush").contains("flushing its output after every small write");
        assertThat(f.fix()).contains("flush once at the end");
        assertThat(new CpuHotspotRule().evaluate(Fixtures.evidence("outside-grizzly-flush-per-row-fixed")).isProblem()).isFalse();
    }

    @Test
    void aLibrarysDataRenderedAsTextIsComputationWithTheLogArgumentReading() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-grizzly-eager-log-argument"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("com.parcelhub.core.TariffCalculator.price");
        assertThat(f.summary()).contains("org.jooq.impl.AbstractFormattable.formatCSV").contains("rendered as text on every call");
        assertThat(f.fix()).startsWith("Render the text only when it is used").contains("logger.isDebugEnabled()");
        assertThat(new CpuHotspotRule().evaluate(Fixtures.evidence("outside-grizzly-eager-log-argument-fixed")).isProblem()).isFalse();
    }

    @Test
    void aKeyDerivedPerResponseGetsTheDeriveOnceFix() {
        Finding f = new CpuHotspotRule().evaluate(Fixtures.evidence("outside-grizzly-key-derived-per-response"));
        assertThat(f.culprit()).isEqualTo("com.parcelhub.infra.AuditTrailFilter.deriveKey");
        assertThat(f.fix()).contains("A key derived from a fixed secret").contains("derive it once");
    }
}
