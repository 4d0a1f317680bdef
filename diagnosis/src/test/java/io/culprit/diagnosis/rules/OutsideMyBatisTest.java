package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session 36's MyBatis service outside the lab: 750 rows per request mapped into objects to
 * average one column in Java. It read db-row-lock, for a select: MyBatis runs statements through
 * {@code execute()}, which may be a write, and the ORM rule knew only Hibernate.
 */
class OutsideMyBatisTest {
    @TempDir Path dir;

    @Test
    void rowsMappedByMyBatisToComputeInJavaAreTheOrmsCpu() {
        Evidence ev = Fixtures.evidence("outside-mybatis-rows-to-average");
        Finding f = new OrmCpuRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.WARN);
        assertThat(f.culprit()).isEqualTo("mb.App$Api.regionAverage");
        assertThat(f.summary()).startsWith("MyBatis's own work holds 25 % of CPU samples, most of it mapping rows to result objects (23 %),"
                + " for mb.App$Api.regionAverage, whose query is \"select id, sku, region, price from quotes where region = ?\"");
        assertThat(f.fix()).startsWith("The statement returns more rows than the request needs: compute it in the database");
        assertThat(f.explanation()).doesNotContain("dirty checking");
        assertThat(new DbRowLockRule().evaluate(ev).isProblem()).as("a select takes no row lock, whatever method runs it").isFalse();
        assertThat(new OrmCpuRule().evaluate(Fixtures.evidence("outside-mybatis-rows-to-average-fixed")).isProblem()).isFalse();
    }

    @Test
    void aResultMapsNestedSelectPerRowIsNamedWithMyBatissCure() {
        Evidence ev = Fixtures.evidence("outside-mybatis-nested-select");
        Finding f = new ChattyCallsRule().evaluate(ev);
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("mb.App$Api.regionsPage:93");
        assertThat(f.summary()).startsWith("sql \"select count(*) from quotes where region = ?\" runs 30 times per request")
                .contains("each is MyBatis's nested select for one row of a list");
        assertThat(f.fix()).startsWith("The resultMap loads the association with its own select for every row").doesNotContain("JOIN FETCH");
        assertThat(new DbRowLockRule().evaluate(ev).isProblem()).as("waits in its selects, whose stacks name no caller").isFalse();
        assertThat(new ChattyCallsRule().evaluate(Fixtures.evidence("outside-mybatis-nested-select-fixed")).isProblem()).isFalse();
    }

    @Test
    void executeIsAReadOnlyWhenEveryStatementOfItsCallerIsAPlainSelect() {
        Table calls = new Table("calls", List.of(), List.of(
                row("kind", "sql", "target", "select id from orders where id = ?", "caller", "a.Orders.find:10"),
                row("kind", "sql", "target", "select id from stock where sku = ? for update", "caller", "a.Stock.take:20"),
                row("kind", "sql", "target", "select count(*) from stock", "caller", "a.Stock.take:22"),
                row("kind", "http", "target", "POST /pay", "caller", "a.Pay.charge:5")), Map.of());
        assertThat(DbRowLockRule.readsOnly("a.Orders.find", Optional.of(calls))).isTrue();
        assertThat(DbRowLockRule.readsOnly("a.Stock.take", Optional.of(calls))).as("one of its statements locks").isFalse();
        assertThat(DbRowLockRule.readsOnly("a.Pay.charge", Optional.of(calls))).as("no SQL known for it").isFalse();
        assertThat(DbRowLockRule.readsOnly("a.Orders.find", Optional.empty())).isFalse();
        assertThat(DbRowLockRule.readsOnly("", Optional.of(calls))).as("no caller: the run's statements, one of which locks").isFalse();
        Table reads = new Table("calls", List.of(), List.of(row("kind", "sql", "target", "select 1", "caller", "a.B.c:1")), Map.of());
        assertThat(DbRowLockRule.readsOnly("", Optional.of(reads))).isTrue();
    }
}
