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
    void myBatisPlussParserPoolIsNamedAsWhatTheRequestsQueueOn() {
        Finding f = new LockContentionRule().evaluate(Fixtures.evidence("outside-mybatis-plus-count"));
        assertThat(f.severity()).isEqualTo(io.culprit.model.Severity.WARN);
        assertThat(f.summary()).contains("waiting for work handed to other threads")
                .endsWith("; they queue on the executor whose thread factory is a lambda in JsqlParserGlobal: 1 thread behind an"
                        + " unbounded queue, all busy in 12 of 21 windows.");
        assertThat(f.fix()).contains("It is MyBatis-Plus's SQL parser pool (JsqlParserGlobal.executorService").doesNotContain("Hystrix");
        assertThat(FullExecutor.builder("JsqlParserGlobal$$Lambda$1368/0x00007ff9045fd1c0@14f895e1")).isEqualTo("JsqlParserGlobal");
        assertThat(FullExecutor.builder("com.acme.Pools$Factory@5e")).isEqualTo("Pools$Factory");
        assertThat(FullExecutor.builder("task-")).isNull();
    }

    @Test
    void aCountWithoutAPaginationPluginKeepsThePlansAdvice() {
        Finding f = new SlowCallsRule().evaluate(Fixtures.evidence("outside-unindexed-scan"));  // select count(*) from events where ...
        assertThat(f.isProblem()).isTrue();
        assertThat(f.fix()).startsWith("Read its plan").doesNotContain("pagination plugin");
    }
}
