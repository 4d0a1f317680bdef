package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Session 56's Spring Boot and Apache Camel service on embedded H2 (the faults of blind round 22,
 * rebuilt): what the rules say on its faults and their fixes.
 */
class OutsideCamelTest {

    @Test
    void aFunctionOnTheFilteredColumnOfAnEmbeddedDatabaseIsTheCauseAndNotALargeReplyOrTheCpu() {
        Diagnosis.Result r = Diagnosis.run(io.culprit.model.CaseFile.open(Fixtures.dir("outside-camel-upper-lookup")));
        Finding top = r.top().orElseThrow();
        assertThat(top.id()).isEqualTo("slow-calls");
        assertThat(top.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(top.summary()).contains("called from com.parcelhub.tracking.ShipmentRepository.findByTrackingNo:49")
                .containsPattern("the database runs inside this JVM \\(embedded\\), and executing the statement takes \\d+ % of its CPU samples")
                .doesNotContain("each reply is large");
        assertThat(top.fix()).startsWith("Read its plan").contains("applies a function to the column (upper(tracking_no))");
        assertThat(top.explains()).contains("cpu-saturation");
        // The CPU the scan burns is the statement's own: saturation is its effect, not the other way round.
        Finding cpu = r.findings().stream().filter(f -> f.id().equals("cpu-saturation")).findFirst().orElseThrow();
        assertThat(cpu.explains()).doesNotContain("slow-calls");
        assertThat(Diagnosis.run(io.culprit.model.CaseFile.open(Fixtures.dir("outside-camel-upper-lookup-fixed"))).top()).isEmpty();
    }

    @Test
    void anEmbeddedDatabaseReadingFarMoreThanItReturnsIsNoLargeReply() {
        io.culprit.diagnosis.Evidence ev = Fixtures.evidence("outside-camel-upper-lookup");
        io.culprit.model.Table calls = ev.table("calls").orElseThrow();
        // 8.6 MB of rows read per call, one row returned: not what the driver decoded.
        assertThat(LargeReplies.clause(ev, "sql", calls.number(0, "count"), calls.number(0, "rows"), new io.culprit.diagnosis.Numbers())).isEmpty();
        // Without the rows counted, the allocation alone still reads as a large reply (agents before session 49).
        assertThat(LargeReplies.clause(ev, "sql", calls.number(0, "count"), new io.culprit.diagnosis.Numbers())).startsWith("; each reply is large");
    }

    @Test
    void anAggregatorConcatenatingOntoItsGrowingTextIsWhatTheCollectionsAreFor() {
        Finding f = new GcPressureRule().evaluate(Fixtures.evidence("outside-camel-csv-concat"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("com.parcelhub.manifest.CsvAggregationStrategy.aggregate");
        assertThat(f.summary()).containsPattern("^com\\.parcelhub\\.manifest\\.CsvAggregationStrategy\\.aggregate copies what it has built at every step: \\d+ MB allocated per request there \\(98 % of sampled allocation, [\\d,]+× the \\d+ KB response\\)");
        assertThat(f.fix()).startsWith("Append to one StringBuilder").doesNotContain("-Xms");
        assertThat(Diagnosis.run(io.culprit.model.CaseFile.open(Fixtures.dir("outside-camel-csv-concat-fixed"))).top()).isEmpty();
    }
}
