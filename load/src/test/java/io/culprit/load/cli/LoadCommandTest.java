package io.culprit.load.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.culprit.load.ResultJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code culprit load} end to end, in-process: exit codes, one-line errors, summary and JSON. */
class LoadCommandTest {

    static io.culprit.load.TestServerHandle server;

    @BeforeAll
    static void start() {
        server = io.culprit.load.TestServerHandle.start(5);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    record Outcome(int code, String out, String err) {
    }

    static Outcome run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new LoadCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        // Same handler as the culprit entry point: picocli's own parse errors are exit 2, one line.
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("culprit: " + ex.getMessage());
            return 2;
        });
        int code = cl.execute(args);
        return new Outcome(code, out.toString(), err.toString());
    }

    @Test
    void thresholdsExit99ExactlyWhenViolated() {
        String url = server.url("/");
        // 5 ms service time: the median is always above 1 ms and, on any machine, below 1 s.
        Outcome pass = run(url, "--rate", "100/s", "-d", "1s", "--warmup", "500ms", "--window", "1s",
                "--threshold", "p50<1s", "--threshold", "errors<1%", "--threshold", "rps>50");
        assertThat(pass.code()).as(pass.out() + pass.err()).isEqualTo(0);
        assertThat(pass.out()).contains("ok   p50<1s").contains("ok   errors<1%").doesNotContain("FAIL");

        Outcome slow = run(url, "--rate", "100/s", "-d", "1s", "--window", "1s",
                "--threshold", "p50<1ms", "--threshold", "errors<1%");
        assertThat(slow.code()).as(slow.out()).isEqualTo(99);
        assertThat(slow.out()).contains("FAIL p50<1ms").contains("ok   errors<1%");

        Outcome failing = run(server.url("/fail"), "-c", "2", "-d", "1s", "--window", "1s",
                "--threshold", "errors<1%", "--threshold", "p50<1s");
        assertThat(failing.code()).as(failing.out()).isEqualTo(99);
        assertThat(failing.out()).contains("FAIL errors<1%").contains("ok   p50<1s").contains("500=");
    }

    @Test
    void summaryWindowsAndJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("result.json");
        Outcome o = run(server.url("/a"), "2@" + server.url("/b"), "--rate", "200/s", "-d", "2s",
                "--window", "1s", "--out", json.toString());
        assertThat(o.code()).as(o.err()).isEqualTo(0);
        assertThat(o.out()).contains("requests ......").contains("latency ...").contains("service time")
                .contains("0s-1s").contains("1s-2s").contains("(from intended send)");

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.get("format").asText()).isEqualTo("culprit-load");
        assertThat(root.get("version").asInt()).isEqualTo(1);
        assertThat(root.at("/plan/model").asText()).isEqualTo("open");
        assertThat(root.at("/plan/requests/1/weight").asDouble()).isEqualTo(2.0);
        assertThat(root.get("windows")).hasSize(2);
        long requests = root.at("/summary/requests").asLong();
        assertThat(requests).isBetween(390L, 410L);
        Histogram total = ResultJson.decodeHistogram(root.at("/histograms/latency").asText());
        assertThat(total.getTotalCount()).isEqualTo(root.at("/summary/responses").asLong());
        long inWindows = 0;
        for (JsonNode w : root.get("windows")) {
            inWindows += ResultJson.decodeHistogram(w.get("latency_hdr").asText()).getTotalCount();
            assertThat(w.get("target_rps").asDouble()).isBetween(199.0, 201.0);
            assertThat(w.get("in_flight").isIntegralNumber()).isTrue();
            assertThat(w.get("start_epoch_ms").asLong()).isGreaterThanOrEqualTo(root.get("started_epoch_ms").asLong());
        }
        assertThat(inWindows).isEqualTo(total.getTotalCount());
        JsonNode byRequest = root.at("/summary/by_request");
        assertThat(byRequest).hasSize(2);
        assertThat(byRequest.get(0).get("url").asText()).endsWith("/a");
        assertThat(byRequest.get(0).get("requests").asLong() + byRequest.get(1).get("requests").asLong()).isEqualTo(requests);
        // Weight 2 of 3 goes to /b: about 267 of 400, binomial sd ~9.
        assertThat(byRequest.get(1).get("requests").asLong()).isBetween(220L, 310L);
        assertThat(o.out()).contains("GET /a").contains("GET /b");
        // Never below the 5 ms service time (the accuracy bounds are LoadEngineTest's business).
        assertThat(root.at("/summary/latency_ms/p50").asDouble()).isGreaterThan(4.9);
        assertThat(root.at("/summary/latency_ms/p50").asDouble())
                .isEqualTo(total.getValueAtPercentile(50) / 1e3);
    }

    @Test
    void badInputIsOneLineAndExit2() throws Exception {
        Outcome malformed = run("http://127.0.0.1:abc/", "-d", "1s");
        assertThat(malformed.code()).isEqualTo(2);
        assertThat(malformed.err().strip()).startsWith("culprit load: malformed URL").doesNotContain("\n");

        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Outcome refused = run("http://127.0.0.1:" + closedPort + "/", "-d", "1s");
        assertThat(refused.code()).isEqualTo(2);
        assertThat(refused.err().strip()).isEqualTo("culprit load: cannot connect to 127.0.0.1:" + closedPort + ": Connection refused");

        Outcome threshold = run(server.url("/"), "--threshold", "p99 below 200ms");
        assertThat(threshold.code()).isEqualTo(2);
        assertThat(threshold.err().strip()).startsWith("culprit load: bad threshold 'p99 below 200ms'").doesNotContain("\n");

        Outcome remote = run("http://10.255.255.1:8080/", "--local-only", "-d", "1s");
        assertThat(remote.code()).isEqualTo(2);
        assertThat(remote.err().strip()).startsWith("culprit load: refusing non-loopback target 10.255.255.1");

        Outcome rate = run(server.url("/"), "--rate", "fast");
        assertThat(rate.code()).isEqualTo(2);
        assertThat(rate.err().strip()).isEqualTo("culprit load: bad rate 'fast' (expected e.g. 800/s or 48000/m)");

        Outcome https = run("https://127.0.0.1:8443/");
        assertThat(https.code()).isEqualTo(2);
        assertThat(https.err().strip()).startsWith("culprit load: unsupported scheme https");
    }

    @Test
    void requestFileMixesPlainAndJsonLines(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("reqs.txt");
        Files.writeString(file, "# comment\n\n" + server.url("/a") + "\nPOST 3@" + server.url("/b") + "\n"
                + "{\"method\":\"PUT\",\"url\":\"" + server.url("/c") + "\",\"headers\":{\"X-K\":\"v\"},\"body\":\"x\"}\n");
        LoadCommand c = new LoadCommand();
        new CommandLine(c).parseArgs("--requests", file.toString(), "--rate", "10");
        var plan = c.plan();
        assertThat(plan.requests()).extracting(r -> r.method() + " " + r.target() + " " + r.weight())
                .containsExactly("GET /a 1.0", "POST /b 3.0", "PUT /c 1.0");
        assertThat(plan.requests().get(2).headers()).containsEntry("X-K", "v");

        Files.writeString(file, "GET " + server.url("/a") + " extra words\n");
        Outcome bad = run("--requests", file.toString(), "--rate", "10");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err().strip()).startsWith("culprit load: " + file + ":1: expected");
    }
}
