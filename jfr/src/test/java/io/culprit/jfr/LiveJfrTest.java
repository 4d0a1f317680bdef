package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.CaseFile;
import io.culprit.model.Table;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The live library the lead wires into diagnose: stream, stop, write into a case file. */
class LiveJfrTest {
    static volatile Object sink;

    @Test
    void liveStreamWritesTheCatalogueIntoACaseFile(@TempDir Path dir) throws Exception {
        LiveJfr live = LiveJfr.start();
        long calls;
        try {
            calls = Recordings.paced(500, 1500, () -> {
                for (int i = 0; i < 256; i++) sink = new byte[1000];
                ExceptionEvidenceTest.lookUpMissingClass();
            });
        } finally {
            live.stop(5000);
        }
        CaseFile cf = CaseFile.create(dir);
        live.writeTo(cf, calls);
        assertThat(cf.seriesNames()).contains("gc", "heap", "alloc", "cpu", "safepoints");
        Table ex = cf.table("exceptions").orElseThrow();
        int row = ExceptionEvidenceTest.rowWhere(ex, "type", "java.lang.ClassNotFoundException");
        // Stop waited for the stream to catch up: every throw made during the stream is there.
        assertThat(ex.number(row, "count")).isEqualTo((double) calls);
        assertThat(ex.number(row, "perRequest")).isEqualTo(1.0);
        assertThat(((Number) ex.meta().get("requests")).longValue()).isEqualTo(calls);
        assertThat(cf.table("classloading").orElseThrow().rows()).isNotEmpty();
    }
}
