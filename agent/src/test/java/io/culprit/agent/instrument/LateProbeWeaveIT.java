package io.culprit.agent.instrument;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.fixture.LateJdbcMain;
import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The framework probes weave a hooked class that loads after they first wove, as diagnose needs
 * it: {@code collect weave}, a warm-up that runs the service's first prepared statement (loading
 * the driver's prepared-statement class), then {@code collect start}. Before, the probes wove only
 * what was loaded at the weave, and a first diagnose of a freshly started service on PostgreSQL
 * saw no statements at all.
 */
class LateProbeWeaveIT {

    private static final String SELECT = "SELECT name FROM item WHERE id = ?";

    @Test
    void aStatementClassLoadedAfterTheWeaveIsWovenAtCollectStart() throws Exception {
        try (ShopTarget target = new ShopTarget(LateJdbcMain.class.getName(), jdbcJars(), List.of())) {
            try {
                AgentChannel agent = AgentChannel.attach(target.pid);
                int atWeave = methods(agent.run("collect weave", false), "woven on (\\d+) method");

                assertThat(target.ask("prepared 20", "done prepared")).isEqualTo("done prepared 20");
                AgentChannel.Call start = agent.run("collect start --no-jfr", false);
                assertThat(start.code).as(start.toString()).isZero();
                int atStart = methods(start, "framework probes on (\\d+) method");
                assertThat(atStart).as("the prepared-statement class's methods join at collect start").isGreaterThan(atWeave);

                assertThat(target.ask("prepared 30", "done prepared")).isEqualTo("done prepared 30");
                String calls = agent.run("calls", false).out.toString();
                assertThat(calls).containsPattern("sql +" + Pattern.quote(SELECT) + " +30 ");

                assertThat(agent.run("reset", false).code).isZero();
                assertThat(agent.run("stop", false).code).isZero();
                assertThat(target.ask("prepared 5", "done prepared")).isEqualTo("done prepared 5");
            } catch (AssertionError | Exception e) {
                throw new AssertionError(e.getMessage() + "\n" + target.dump(), e);
            }
        }
    }

    private static int methods(AgentChannel.Call call, String regex) {
        Matcher m = Pattern.compile(regex).matcher(call.out);
        assertThat(m.find()).as(call.toString()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    /** HikariCP, H2 and slf4j from this test's class path: the target gets nothing of culprit's. */
    private static List<Path> jdbcJars() {
        List<Path> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Paths.get(entry).getFileName().toString();
            if (name.startsWith("HikariCP-") || name.startsWith("h2-") || name.startsWith("slf4j-api-")) jars.add(Paths.get(entry));
        }
        assertThat(jars).as("HikariCP, H2 and slf4j-api on the test class path").hasSize(3);
        return jars;
    }
}
