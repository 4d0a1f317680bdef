package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.it.targets.SpinTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PsIT {

    static java.util.List<String> javaHomes() {
        return TargetJvm.javaHomes();
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void listsATargetWithItsMainClassAndJdk(String javaHome) throws Exception {
        try (TargetJvm t = TargetJvm.start(javaHome, SpinTarget.class)) {
            Cli.Result r = Cli.run("ps");
            String line = r.out.lines().filter(l -> l.startsWith(t.pid() + " ")).findFirst().orElse(null);
            assertThat(line).as("%s\ntarget:\n%s", r, t.log()).isNotNull();
            assertThat(line).contains(SpinTarget.class.getName()).contains(releaseVersion(javaHome));
            assertThat(r.code).isZero();
        }
    }

    private static String releaseVersion(String javaHome) throws Exception {
        return Files.readAllLines(Path.of(javaHome, "release")).stream()
                .filter(l -> l.startsWith("JAVA_VERSION=")).findFirst().orElseThrow()
                .substring(13).replace("\"", "");
    }
}
