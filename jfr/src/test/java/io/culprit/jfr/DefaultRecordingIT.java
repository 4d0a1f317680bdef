package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.jfr.collect.Observation;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A recording the user made without culprit ({@code -XX:StartFlightRecording}, the JDK's default
 * settings) still yields the GC evidence. Run on this JDK and, when installed, on JDK 25, whose
 * event set differs.
 */
class DefaultRecordingIT {
    static Stream<String> javas() {
        List<String> out = new ArrayList<>();
        out.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path jdk25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        if (Files.isExecutable(jdk25)) out.add(jdk25.toString());
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("javas")
    void gcEvidenceFromDefaultSettings(String java, @TempDir Path dir) throws Exception {
        JfrEvidence ev = JfrFiles.read(record(java, dir, ""));
        Observation o = ev.observed(0);
        Series gc = ev.series(o).stream().filter(s -> s.name().equals("gc")).findFirst().orElseThrow();
        assertThat(Arrays.stream(gc.column("pauseCount").orElseThrow()).sum()).isGreaterThan(2);
        assertThat(Arrays.stream(gc.column("pauseSumMs").orElseThrow()).sum()).isGreaterThan(0);
        Table collectors = ev.tables(o).get("gc-collectors");
        assertThat(collectors.rows()).isNotEmpty();
        Table config = ev.tables(o).get("heap-config");
        assertThat(config.number(0, "maxMb")).isEqualTo(64.0);
        assertThat(config.text(0, "collector")).isNotBlank();
    }

    /** culprit.jfc given to -XX:StartFlightRecording on each JDK: its exception settings hold there too. */
    @ParameterizedTest
    @MethodSource("javas")
    void culpritSettingsRecordSwallowedExceptionsOnEachJdk(String java, @TempDir Path dir) throws Exception {
        Path jfc = dir.resolve("culprit.jfc"); // failsafe runs from the jar: copy the resource out
        try (var in = CulpritSettings.class.getResourceAsStream(CulpritSettings.RESOURCE)) {
            Files.copy(in, jfc);
        }
        JfrEvidence ev = JfrFiles.read(record(java, dir, ",settings=" + jfc));
        String log = Files.readString(dir.resolve("target.log"));
        long calls = Long.parseLong(log.substring(log.indexOf("calls=") + 6).trim().split("\\s")[0]);
        Table t = ev.tables(ev.observed(0)).get("exceptions");
        int row = ExceptionEvidenceTest.rowWhere(t, "type", "java.lang.ClassNotFoundException");
        assertThat(t.text(row, "site")).startsWith(AllocatingTarget.class.getName() + ".probeOptionalModule:");
        // Every throw the target made (it prints its own count), 2 % slack for JFR buffer loss.
        assertThat(t.number(row, "count")).as(log).isBetween(calls * 0.98, (double) calls);
        Table misses = ev.tables(ev.observed(0)).get("classloading");
        assertThat(misses.text(ExceptionEvidenceTest.rowWhere(misses, "name", "com.example.OptionalModule"), "caller"))
                .startsWith(AllocatingTarget.class.getName() + ".probeOptionalModule:");
    }

    private static Path record(String java, Path dir, String options) throws Exception {
        Path jfr = dir.resolve("target.jfr");
        Path log = dir.resolve("target.log");
        // A small young generation: on a machine loaded by other builds the paced target may get a
        // fraction of a core and allocate far less than 200 MB/s; 8 MB still gives several GCs then.
        Process p = new ProcessBuilder(java, "-Xmx64m", "-Xmn8m", "-XX:StartFlightRecording=filename=" + jfr + options,
                "-cp", System.getProperty("java.class.path"), AllocatingTarget.class.getName(), "2")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("target finished").isTrue();
        assertThat(p.exitValue()).as(Files.readString(log)).isZero();
        return jfr;
    }
}
