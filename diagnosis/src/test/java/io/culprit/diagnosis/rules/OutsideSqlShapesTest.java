package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * Statements whose shape no index can serve, on services written outside the lab in session 30
 * (Spring Boot 3.5.7, HikariCP over PostgreSQL 15, 300,000 people, 16 connections): a substring
 * search through lower(email) and pages read with a deep OFFSET over an unindexed ORDER BY.
 */
class OutsideSqlShapesTest {

    /** The pool is what the requests queue at; the statement holding it is what to fix first. */
    @Test
    void aFullPoolNamesTheStatementItIsBusyWithAndLeadsWithItsCure() {
        Finding f = new PoolSizeRule().evaluate(Fixtures.evidence("outside-function-like-scan"));
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.summary()).endsWith("; the connections are busy with sql \"select id, email from people where lower(email)"
                + " like ? li...\", 20.5 ms each, 8.4 running on average (Little's Law).");
        assertThat(f.fix()).startsWith("Shorten connection usage first: Read its plan (EXPLAIN ANALYZE): the filter applies a"
                + " function to the column (lower(email))").contains("CREATE INDEX ON people (lower(email))",
                "CREATE INDEX ON people USING gin (lower(email) gin_trgm_ops)", "Then size the pool");
    }

    @Test
    void deepOffsetPagesAreAnsweredWithKeysetPagination() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-offset-paging"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("select id, name from people order by name limit ? offset ?");
        assertThat(f.fix()).startsWith("It pages with OFFSET").contains("keyset pagination", "CREATE INDEX ON people (name)");
    }
}
