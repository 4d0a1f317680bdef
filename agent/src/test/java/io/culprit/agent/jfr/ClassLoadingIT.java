package io.culprit.agent.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code classloading} through the packaged agent ({@code -javaagent}, Bridge on the bootstrap
 * class path, isolated loader, channel) on a target that probes a service, a resource and a
 * missing class on every call: all three kinds are named with the target's method as caller and
 * the same rate (they happen together), and the agent's own lookups are not listed.
 * Tolerance: the three rates agree within 15 %. The target's log is printed on failure.
 */
class ClassLoadingIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void lookupsAndMissesByCallerOnALiveTarget(@TempDir Path dir) throws Exception {
        Path agent = Paths.get("target", "culprit-agent.jar").toAbsolutePath();
        Path log = dir.resolve("target.log");
        Process p = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                // Only the test classes: the agent jar must not also sit on the class path (its launcher finds itself by location).
                "-javaagent:" + agent, "-cp", Paths.get("target", "test-classes").toAbsolutePath().toString(), LookupTarget.class.getName())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            Path run = Paths.get(System.getProperty("user.home"), ".culprit", "run", p.pid() + ".json");
            long deadline = System.currentTimeMillis() + 30_000;
            while (!Files.exists(run) && System.currentTimeMillis() < deadline) Thread.sleep(50); // the agent writes it once it listens
            assertThat(run).as(Files.readString(log)).exists();
            JsonNode info = JSON.readTree(run.toFile());
            String out = command(info.get("port").asInt(), info.get("token").asText(), "classloading -i 2000");
            String caller = "from " + LookupTarget.class.getName() + ".buildConverters:";
            assertThat(out).as(Files.readString(log))
                    .containsPattern("service-lookup +\\d+ +[0-9.]+  java.sql.Driver  " + caller)
                    .containsPattern("resource-lookup +\\d+ +[0-9.]+  META-INF/spring.factories  " + caller)
                    .containsPattern("class-miss +\\d+ +[0-9.]+  com.fasterxml.jackson.datatype.joda.JodaModule  " + caller)
                    .doesNotContain("from io.culprit.jfr").doesNotContain("from io.culprit.agent.jfr.LookupListener");
            double service = rate(out, "java.sql.Driver"), miss = rate(out, "JodaModule");
            assertThat(service).isGreaterThan(10);
            assertThat(miss).isBetween(service * 0.85, service * 1.15);
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static double rate(String out, String name) {
        for (String line : out.split("\n")) {
            if (line.contains(name)) return Double.parseDouble(line.trim().split(" +")[2]);
        }
        throw new AssertionError("no " + name + " in\n" + out);
    }

    /** One command over the channel: first line the request, then out/err/end lines. */
    private static String command(int port, String token, String cmd) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(60_000);
            OutputStream o = s.getOutputStream();
            o.write((JSON.writeValueAsString(Map.of("token", token, "cmd", cmd, "json", false, "width", 120)) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            o.flush();
            StringBuilder text = new StringBuilder();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                JsonNode m = JSON.readTree(line);
                String t = m.get("t").asText();
                if (t.equals("out") || t.equals("err")) text.append(m.get("text").asText()).append('\n');
                if (t.equals("end")) break;
            }
            return text.toString();
        }
    }
}
