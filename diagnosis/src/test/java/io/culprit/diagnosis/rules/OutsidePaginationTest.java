package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import org.junit.jupiter.api.Test;

/**
 * Session 36's MyBatis service outside the lab: PageHelper counts a 300,000-row table before every
 * page. The slow count is named with the application's method that asked for the page (not
 * PageHelper's frames) and with the plugin's own setting as the fix.
 */
class OutsidePaginationTest {

    @Test
    void aPaginationPluginsCountIsNamedWithTheSettingThatSkipsIt() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-pagehelper-count"));
        assertThat(f.isProblem()).isTrue();
        assertThat(f.summary()).contains("worst: sql \"SELECT count(?) FROM quotes\"").endsWith("called from mb.App$Api.page:61.");
        assertThat(f.fix()).startsWith("The pagination plugin counts every row the query matches before each page")
                .contains("startPage(pageNum, pageSize, false)");
        assertThat(new SlowCallsRule().evaluate(Fixtures.evidence("outside-pagehelper-count-fixed")).isProblem()).isFalse();
    }

    @Test
    void myBatisPlussCountIsNamedAlikeAndItsPerCallMachineryIsNoFinding() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-mybatis-plus-count"));
        assertThat(f.summary()).contains("worst: sql \"SELECT COUNT(*) AS total FROM quotes\"").endsWith("called from mp.App$Api.page:63.");
        assertThat(f.fix()).contains("new Page<>(current, size, false)");
        Finding orm = new OrmCpuRule().evaluate(Fixtures.evidence("outside-mybatis-plus-count-fixed"));
        assertThat(orm.severity()).isEqualTo(io.culprit.model.Severity.INFO);
        assertThat(orm.summary()).endsWith("with no part holding half of it: the cost of each call, not of many rows.");
    }

    @Test
    void aCountWithoutAPaginationPluginKeepsThePlansAdvice() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-unindexed-scan"));  // select count(*) from events where ...
        assertThat(f.isProblem()).isTrue();
        assertThat(f.fix()).startsWith("Read its plan").doesNotContain("pagination plugin");
    }
}
