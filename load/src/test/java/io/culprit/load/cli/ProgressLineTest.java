package io.culprit.load.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.load.Progress;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ProgressLineTest {

    @Test
    void rewritesOneLineInPlaceAndWipesIt() {
        StringWriter err = new StringWriter();
        ProgressLine line = new ProgressLine(new PrintWriter(err));
        line.onProgress(new Progress(1_000_000_000L, 12_000_000_000L, true, 0, 0, 0, 0, 0));
        line.onProgress(new Progress(3_000_000_000L, 12_000_000_000L, false, 1600, 3, 799.5, 3_010, 1_040_000));
        line.clear();

        String[] frames = err.toString().split("\r", -1);
        assertThat(frames[1]).isEqualTo("warming up ... 11s left");
        assertThat(frames[2].strip()).isEqualTo(
                "799.5 req/s   requests 1600   errors 3   p50 3.01ms   p99 1.04s   9s left");
        assertThat(err.toString()).doesNotContain("\n").endsWith("\r");
    }

    @Test
    void microsReadAtAGlance() {
        assertThat(SummaryRenderer.micros(850)).isEqualTo("850us");
        assertThat(SummaryRenderer.micros(12_345)).isEqualTo("12.35ms");
        assertThat(SummaryRenderer.micros(1_040_000)).isEqualTo("1.04s");
    }
}
