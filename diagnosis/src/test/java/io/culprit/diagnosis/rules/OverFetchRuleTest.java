package io.culprit.diagnosis.rules;

import static io.culprit.diagnosis.CaseBuilder.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.CaseBuilder;
import io.culprit.diagnosis.Evidence;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rows per request, from the rows the agent counts per statement, weighed by what reading them costs. */
class OverFetchRuleTest {
    @TempDir Path dir;

    private static final String CALLER = "com.acme.lockers.ParcelRepository.forLocker:41";
    private static final String READ = "org.mariadb.jdbc.client.result.Result.next;org.jooq.impl.CursorImpl.fetchNext";

    /** 900 requests; the parcels statement once per request with {@code rowsPerResult} rows; {@code underCaller} of 1,000 CPU samples. */
    private Evidence fetching(String sql, double rowsPerResult, int underCaller, double allocShare) {
        return builder(sql, rowsPerResult, underCaller, allocShare).evidence();
    }

    private CaseBuilder builder(String sql, double rowsPerResult, int underCaller, double allocShare) {
        String collapsed = "java.lang.Thread.run;com.acme.lockers.Api.open;" + CALLER.replace(":41", "") + ";" + READ + " " + underCaller + "\n"
                + "java.lang.Thread.run;com.acme.lockers.Api.open;com.acme.lockers.Render.json " + (1000 - underCaller) + "\n";
        return CaseBuilder.in(dir, 10, 2)
                .table("calls",
                        row("kind", "sql", "target", sql, "count", 900, "totalMs", 1_800.0, "p99Ms", 4.0, "maxMs", 9.0, "slowCount", 0,
                                "shareOfRequestTime", 0.08, "perRequest", 1.0, "caller", CALLER,
                                "callPath", CALLER + " ← com.acme.lockers.Api.open:20", "resultSets", 900,
                                "rows", (long) (900 * rowsPerResult), "rowsMax", (long) rowsPerResult + 12),
                        row("kind", "sql", "target", "SELECT id FROM locker WHERE code = ?", "count", 900, "totalMs", 90.0, "p99Ms", 0.2,
                                "maxMs", 1.0, "slowCount", 0, "shareOfRequestTime", 0.01, "perRequest", 1.0,
                                "caller", "com.acme.lockers.LockerRepository.byCode:12", "resultSets", 900, "rows", 900, "rowsMax", 1))
                .tableWithMeta("alloc-sites", Map.of("totalMb", 4_000.0),
                        row("site", "org.mariadb.jdbc.client.result.Result.next", "share", allocShare,
                                "stack", List.of("org.mariadb.jdbc.client.result.Result.next:300", "org.jooq.impl.CursorImpl.fetchNext:1",
                                        CALLER, "com.acme.lockers.Api.open:20")),
                        row("site", "com.acme.lockers.Render.json", "share", 1 - allocShare,
                                "stack", List.of("com.acme.lockers.Render.json:9", "com.acme.lockers.Api.open:22")))
                .file("profiles/cpu.collapsed", collapsed);
    }

    @Test
    void thousandsOfRowsPerRequestReadAtTheCallersCostAreTheCause() {
        Finding f = new OverFetchRule().evaluate(fetching("SELECT id, locker_id, status FROM parcel", 20_412, 620, 0.8));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo(CALLER);
        assertThat(f.summary()).isEqualTo("sql \"SELECT id, locker_id, status FROM parcel\" returns 20,412 rows per execution and runs once"
                + " per request: 20,412 rows per request (at most 20,424 in one result), read at " + CALLER + "; reading them takes 62 % of the"
                + " CPU samples and 80 % of sampled allocation; the statement has no WHERE clause: the whole table, every time.");
        assertThat(f.fix()).startsWith("Ask the database for the rows the request uses: put the filter in the WHERE clause");
        assertThat(f.explains()).contains("gc-pressure", "orm-cpu", "cpu-saturation");
    }

    @Test
    void manyRowsThatCostLittleAreNotedNotBlamed() {
        Finding f = new OverFetchRule().evaluate(fetching("SELECT id FROM parcel WHERE locker_id = ?", 800, 30, 0.05));
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).doesNotContain("WHERE clause");
        assertThat(f.explains()).isEmpty();
    }

    /** The lab's n-plus-one fixed twin: every listed order's lines in one IN query, all of them in the response. */
    @Test
    void rowsTheResponsesCarryAreAListNotAnOverFetch() {
        Evidence sent = builder("SELECT l.order_id, l.qty FROM order_lines l WHERE l.order_id IN (?, ...)", 500, 620, 0.8)
                .loadJson("\"summary\":{\"responses\":900,\"body_bytes\":" + 900 * 45_000 + "}").evidence();
        Finding f = new OverFetchRule().evaluate(sent);
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(f.summary()).endsWith("; the responses carry them: 43.9 KB a response, 90 bytes per row read, so the rows read are"
                + " the rows the client gets.");
        // 2 KB for 20,000 rows: filtered away after the read.
        Evidence filtered = builder("SELECT id, locker_id, status FROM parcel", 20_412, 620, 0.8)
                .loadJson("\"summary\":{\"responses\":900,\"body_bytes\":" + 900 * 2_000 + "}").evidence();
        assertThat(new OverFetchRule().evaluate(filtered).severity()).isEqualTo(Severity.CRITICAL);
    }

    @Test
    void aPageOfRowsIsNoOverFetch() {
        Finding f = new OverFetchRule().evaluate(fetching("SELECT id FROM parcel WHERE locker_id = ? LIMIT ?", 50, 620, 0.8));
        assertThat(f.isProblem()).isFalse();
        assertThat(f.summary()).startsWith("no statement returned 200 rows or more per execution");
    }

    @Test
    void aCaseWithoutRowCountsIsNotAssessed() {
        Evidence ev = CaseBuilder.in(dir, 10, 2).table("calls", row("kind", "sql", "target", "SELECT 1", "count", 1, "totalMs", 1.0))
                .evidence();
        assertThat(new OverFetchRule().evaluate(ev).severity()).isEqualTo(Severity.OK);
        assertThat(new OverFetchRule().evaluate(ev).summary()).contains("no rows per statement");
    }
}
