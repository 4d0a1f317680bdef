package io.culprit.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.cli.Culprit;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The launcher's pure parts: locating the jar, reading ground truth, building the child's command line. */
class LabJarTest {

    @TempDir
    Path home;

    private Path fakeLab() throws IOException {
        Path jar = home.resolve("lab/target/culprit-lab.jar");
        Files.createDirectories(jar.getParent());
        try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out)) {
            put(zip, "index", "{\"format\":1,\"scenarios\":[\"healthy\",\"gc-pool-starvation\"]}");
            put(zip, "healthy", "{\"format\":1,\"name\":\"healthy\",\"title\":\"Baseline\",\"endpoint\":{\"method\":\"GET\",\"path\":\"/api/orders/7\"},"
                    + "\"jvmArgs\":[\"-Xmx256m\"],\"fixedJvmArgs\":[\"-Xmx256m\"],\"rootCause\":{\"category\":\"none\"}}");
            put(zip, "gc-pool-starvation", "{\"format\":1,\"name\":\"gc-pool-starvation\",\"title\":\"GC\",\"endpoint\":{\"method\":\"GET\",\"path\":\"/s\"},"
                    + "\"jvmArgs\":[\"-Xms16m\",\"-Xmx64m\"],\"fixedJvmArgs\":[\"-Xms1g\",\"-Xmx1g\"],"
                    + "\"rootCause\":{\"category\":\"gc-pressure-pool-starvation\"}}");
        }
        return jar;
    }

    private static void put(ZipOutputStream zip, String name, String json) throws IOException {
        zip.putNextEntry(new ZipEntry(LabJar.ENTRY_PREFIX + name + ".json"));
        zip.write(json.getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
    }

    @Test
    void missingHomeOrJarIsAOneLineError() {
        assertThatThrownBy(() -> LabJar.locate(Map.of("CULPRIT_HOME", home.toString())))
                .hasMessageStartingWith("lab jar not found at " + home.resolve("lab/target/culprit-lab.jar"))
                .hasMessageNotContaining("\n");
    }

    @Test
    void readsScenariosAndTheirFlagsFromTheJar() throws IOException {
        fakeLab();
        LabJar jar = LabJar.locate(Map.of("CULPRIT_HOME", home.toString()));
        assertThat(jar.scenarioNames()).containsExactly("healthy", "gc-pool-starvation");
        GroundTruth gc = jar.scenario("gc-pool-starvation");
        assertThat(gc.category()).isEqualTo("gc-pressure-pool-starvation");
        assertThat(gc.jvmArgs(false)).containsExactly("-Xms16m", "-Xmx64m");
        assertThat(gc.jvmArgs(true)).containsExactly("-Xms1g", "-Xmx1g");
        assertThatThrownBy(() -> jar.scenario("nope"))
                .hasMessage("unknown lab scenario 'nope'; known: healthy, gc-pool-starvation");
    }

    @Test
    void childCommandCarriesTheTwinsFlagsAndTheLabProperties() throws IOException {
        Path path = fakeLab();
        GroundTruth gc = LabJar.at(path).scenario("gc-pool-starvation");
        List<String> cmd = LabProcess.command(path, gc, new LabProcess.Options("gc-pool-starvation", false, "postgres", 9090, true));
        assertThat(cmd.get(0)).endsWith("java");
        assertThat(cmd).containsSubsequence("-Xms16m", "-Xmx64m", "-jar", path.toString(), "--lab.scenario=gc-pool-starvation",
                "--lab.fixed=false", "--lab.db=postgres", "--lab.redis=true", "--lab.port=9090");
        assertThat(LabProcess.command(path, gc, new LabProcess.Options("gc-pool-starvation", true, "h2", 9090, false)))
                .contains("-Xms1g", "-Xmx1g", "--lab.fixed=true").doesNotContain("-Xmx64m");
    }

    @Test
    void badOptionsAreRejected() {
        assertThatThrownBy(() -> new LabProcess.Options("healthy", false, "mysql", 8080, false))
                .hasMessage("unknown database 'mysql'; known: h2, postgres");
        assertThatThrownBy(() -> new LabProcess.Options("healthy", false, "h2", -1, false))
                .hasMessage("port must be 0-65535 (0: any free port), got -1");
        assertThatThrownBy(() -> new LabProcess.Options("healthy", false, "h2", 65_536, false))
                .hasMessage("port must be 0-65535 (0: any free port), got 65536");
    }

    @Test
    void commandListsScenariosAndRejectsUnknownOnes() throws IOException {
        fakeLab();
        String previous = System.getProperty("culprit.home");
        System.setProperty("culprit.home", home.toString());
        try {
            // Only meaningful when the environment does not already point elsewhere.
            org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("CULPRIT_HOME") == null, "CULPRIT_HOME is set");
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cl = Culprit.commandLine();
            cl.setOut(new PrintWriter(out));
            cl.setErr(new PrintWriter(err));
            assertThat(cl.execute("lab", "--list")).isZero();
            assertThat(out.toString()).contains("healthy", "Baseline", "gc-pool-starvation");
            assertThat(cl.execute("lab", "--scenario", "nope")).isEqualTo(2);
            assertThat(err.toString()).contains("culprit lab: unknown lab scenario 'nope'");
            assertThat(cl.execute("lab")).isEqualTo(2);
            assertThat(err.toString()).contains("--scenario NAME is required");
        } finally {
            if (previous == null) {
                System.clearProperty("culprit.home");
            } else {
                System.setProperty("culprit.home", previous);
            }
        }
    }
}
