package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import org.junit.jupiter.api.Test;

/**
 * Session 39's blind claims service: each fault read the right place before, but with the wrong
 * mechanism or a generic cure ("shard the counter" for a materialized view refreshed per write and
 * for a work queue without SKIP LOCKED, "raise -Xmx" for a soft-valued cache).
 */
class OutsideClaimsServiceTest {

    private static Diagnosis.Result run(String fixture) {
        return Diagnosis.run(CaseFile.open(Fixtures.dir(fixture)));
    }

    @Test
    void aMaterializedViewRefreshedPerWriteIsATableLockWithItsReadersBehindIt() {
        Diagnosis.Result r = run("outside-matview-refresh-per-write");
        Finding f = r.top().orElseThrow();
        assertThat(f.id()).isEqualTo("table-lock");
        assertThat(f.summary()).startsWith("\"REFRESH MATERIALIZED VIEW c39a_policy_payout_totals\" runs 1 time(s) per request (P99 3,523 ms")
                .contains("REFRESH MATERIALIZED VIEW locks all of c39a_policy_payout_totals")
                .contains("\"SELECT payout_count, total_paid, last_paid_at FROM c39a_p...\" waits behind it (32 % of request time");
        assertThat(f.fix()).startsWith("Take the refresh off the request path").contains("CONCURRENTLY");
        assertThat(f.explains()).contains("db-row-lock");
    }

    @Test
    void maintenanceStatementsAreRecognisedWithTheirRelation() {
        for (String sql : new String[] {"REFRESH MATERIALIZED VIEW CONCURRENTLY totals", "truncate table scratch", "LOCK TABLE t IN EXCLUSIVE MODE",
                "CREATE INDEX idx_a ON orders (a)", "VACUUM ANALYZE orders", "ALTER TABLE orders ADD COLUMN x int"}) {
            assertThat(TableLockRule.relation(sql)).as(sql).isNotNull();
        }
        assertThat(TableLockRule.relation("SELECT * FROM vacuum_log")).isNull();
        assertThat(TableLockRule.relation("UPDATE locks SET x = 1")).isNull();
        assertThat(TableLockRule.relation("CREATE INDEX idx_a ON orders (a)")).isEqualTo("orders");
        assertThat(TableLockRule.relation("VACUUM ANALYZE orders")).isEqualTo("orders");
    }

    @Test
    void aQueueHeadTakenWithoutSkipLockedIsNamedWithItsCure() {
        Finding f = run("outside-queue-head-for-update").top().orElseThrow();
        assertThat(f.summary()).contains("every worker locks the same first row (LIMIT … FOR UPDATE without SKIP LOCKED)");
        assertThat(f.fix()).startsWith("Add SKIP LOCKED");
        assertThat(DbRowLockRule.queueHead("select id from q where s = ? order by p desc limit ? for update skip locked")).isFalse();
        assertThat(DbRowLockRule.queueHead("select id from q where id = ? for update")).as("one row by key: a row lock, no queue").isFalse();
        assertThat(DbRowLockRule.queueHead("SELECT id FROM q ORDER BY id FETCH FIRST 1 ROWS ONLY FOR UPDATE")).isTrue();
    }

    @Test
    void bundlesLookedUpWithoutACacheNameSpringsCacheDurationAndTheCaller() {
        Finding f = run("outside-message-bundle-no-cache").top().orElseThrow();
        assertThat(f.summary()).contains("called from com.northwind.claims.eob.ExplanationOfBenefitsService.statement:46");
        assertThat(f.explanation()).startsWith("java.util.ResourceBundle finds a bundle by trying every candidate");
        assertThat(f.fix()).startsWith("Let Spring's MessageSource cache its bundles: remove spring.messages.cache-duration");
    }

    @Test
    void xpathPerItemIsItsOwnKindOfComputation() {
        Finding f = run("outside-xpath-per-line-item").top().orElseThrow();
        assertThat(f.summary()).contains("that is evaluating XPath");
        assertThat(f.fix()).contains("Compile each XPathExpression once").contains("index the nodes once");
    }

    @Test
    void temporaryReplyQueuesAreNamedWithDirectReplyToAsTheCure() {
        Finding f = run("outside-temporary-reply-queue").top().orElseThrow();
        assertThat(f.summary()).contains("the template declares a reply queue for each call");
        assertThat(f.fix()).startsWith("Use direct reply-to");
        assertThat(RequestWaitsRule.topology(java.util.List.of("java.lang.Object.wait", "com.rabbitmq.client.impl.ChannelN.queueDeclare:989")))
                .isEqualTo("in ChannelN.queueDeclare");
        assertThat(RequestWaitsRule.topology(java.util.List.of("com.rabbitmq.client.impl.ChannelN.waitForConfirms:270"))).isNull();
    }

    @Test
    void softValuesFillingTheHeapAreTheCauseNotTheHeapSize() {
        Finding f = run("outside-soft-values-cache").top().orElseThrow();
        assertThat(f.summary()).startsWith("collections found up to 3,325 soft references each")
                .contains("softly held values fill it, most of the allocation made by com.northwind.claims.renewal.PolicyWordingRenderer.render");
        assertThat(f.fix()).startsWith("Bound the cache by size or weight with strong values");
    }

    @Test
    void aSimpleJdbcInsertBuiltPerRequestReadsTheCatalogOnEachAndItsFixedTwinDoesNot() {
        Finding f = run("outside-simple-jdbc-insert-per-call").top().orElseThrow();
        assertThat(f.id()).isEqualTo("catalog-reads");
        assertThat(f.summary()).startsWith("Requests read the database's catalog: 4 metadata queries per request through"
                + " org.springframework.jdbc.core.simple.SimpleJdbcInsert.executeAndReturnKey called from"
                + " com.northwind.claims.intake.ClaimIntakeService.submit:51, 21 % of request time");
        assertThat(f.fix()).startsWith("Build the SimpleJdbcInsert once").contains("withoutTableColumnMetaDataAccess");
        assertThat(run("outside-simple-jdbc-insert-per-call-fixed").finding("catalog-reads").orElseThrow().summary())
                .startsWith("no request read the database's catalog");
    }
}
