package io.culprit.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.culprit.cli.it.targets.AllocTarget;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DashboardIT {

    static List<String> javaHomes() {
        return TargetJvm.javaHomes();
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void gcCountsRiseWhileTheTargetAllocates(String javaHome) throws Exception {
        try (TargetJvm t = TargetJvm.start(javaHome, AllocTarget.class, "-Xmx64m")) {
            String pid = Long.toString(t.pid());
            long first = gcCount(Cli.run("exec", "--json", pid, "dashboard"));
            Thread.sleep(1000);
            Cli.Result second = Cli.run("exec", "--json", pid, "dashboard");
            assertThat(gcCount(second)).as("%s\ntarget:\n%s", second, t.log()).isGreaterThan(first);

            Cli.Result text = Cli.run("exec", pid, "dashboard; stop");
            assertThat(text.code).as(text.toString()).isZero();
            assertThat(text.out).containsIgnoringCase("heap").containsIgnoringCase("gc").containsIgnoringCase("threads");
            assertThat(t.serves()).isTrue();
        }
    }

    private static long gcCount(Cli.Result r) throws Exception {
        assertThat(r.code).as(r.toString()).isZero();
        JsonNode frame = new ObjectMapper().readTree(r.out);
        long sum = 0;
        for (JsonNode gc : frame.path("gc")) sum += gc.path("count").asLong();
        return sum;
    }
}
