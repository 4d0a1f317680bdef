package io.culprit.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaseFileTest {

    @Test
    void seriesTablesAndFindingsRoundTrip(@TempDir Path dir) {
        CaseFile cf = CaseFile.create(dir);
        cf.write(CaseInfo.of("diagnose", 1000, 61000, "culprit diagnose 42", Map.of("pid", "42")));
        cf.write(Series.builder("gc", 1000).unit("pauseSumMs", "ms")
                .row(1000, Map.of("pauseSumMs", 12.5))
                .row(2000, Map.of("pauseSumMs", 3, "count", 1))
                .build());
        cf.write(new Table("exceptions", List.of("type", "count"), List.of(Map.of("type", "java.lang.ClassNotFoundException", "count", 8000))));
        cf.writeFindings(List.of(new Finding("gc-pressure", "GC pressure", Severity.CRITICAL, 0.8, Verdict.CONFIRMED,
                "GC pauses took 12 % of wall time", "...", "-Xms = -Xmx", "culprit exec 42 dashboard", List.of("series/gc#pauseSumMs"), List.of())));

        CaseFile back = CaseFile.open(dir);
        assertThat(back.info().durationSeconds()).isEqualTo(60.0);
        Series gc = back.series("gc").orElseThrow();
        assertThat(gc.column("pauseSumMs").orElseThrow()).containsExactly(12.5, 3.0);
        // a column first seen in a later row is padded with NaN for the earlier ones
        assertThat(gc.column("count").orElseThrow()[0]).isNaN();
        assertThat(back.seriesNames()).containsExactly("gc");
        assertThat(back.table("exceptions").orElseThrow().number(0, "count")).isEqualTo(8000);
        assertThat(back.findings()).singleElement().satisfies(f -> assertThat(f.severity()).isEqualTo(Severity.CRITICAL));
    }

    @Test
    void refusesADirectoryWithoutCaseJson(@TempDir Path dir) {
        assertThatThrownBy(() -> CaseFile.open(dir)).hasMessageContaining("no case.json");
    }

    @Test
    void refusesANewerFormat(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("case.json"), "{\"formatVersion\": 99}");
        assertThatThrownBy(() -> CaseFile.open(dir)).hasMessageContaining("format 99");
    }

    /** Format 1 named the connection pool's columns after HikariCP; they read as format 2's db* columns. */
    @Test
    void readsFormatOnesHikariColumnsAsDbColumns(@TempDir Path dir) throws Exception {
        CaseFile cf = CaseFile.create(dir);
        cf.write(Series.builder("pools", 1000).unit("hikariAcquireMsMax", "ms")
                .row(1000, Map.of("hikariPending", 3, "hikariAcquireMsMax", 40, "containerBusy", 7)).build());
        Files.writeString(dir.resolve("case.json"), "{\"formatVersion\": 1}");
        Series v1 = CaseFile.open(dir).series("pools").orElseThrow();
        assertThat(v1.columns()).containsOnlyKeys("dbPending", "dbAcquireMsMax", "containerBusy");
        assertThat(v1.column("dbPending").orElseThrow()).containsExactly(3.0);
        assertThat(v1.units()).containsEntry("dbAcquireMsMax", "ms");

        Files.writeString(dir.resolve("case.json"), "{\"formatVersion\": 2}");
        assertThat(CaseFile.open(dir).series("pools").orElseThrow().columns()).containsKey("hikariPending");
    }
}
