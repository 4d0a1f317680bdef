package io.culprit.cli.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.cli.it.Cli;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Starts the real lab jar as a child JVM and stops it. The lab module is built after cli, so in a
 * clean reactor build the jar is not there yet and this test is skipped (with a message).
 */
class LabProcessIT {

    @Test
    void startsAnswersAndStops() throws Exception {
        Path jar = Path.of("..", "lab", "target", "culprit-lab.jar").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isRegularFile(jar), "no " + jar + " yet (lab builds after cli); skipping");
        Path log = Files.createTempFile("lab-process-it", ".log");
        LabProcess lab = LabProcess.start(LabJar.at(jar),
                new LabProcess.Options("healthy", false, "h2", 0, false),
                ProcessBuilder.Redirect.appendTo(log.toFile()));
        try {
            assertThat(lab.port()).as("the port the lab bound and reported").isBetween(1, 65_535);
            HttpClient http = HttpClient.newHttpClient();
            String mode = http.send(HttpRequest.newBuilder(URI.create(lab.baseUrl() + "/lab/mode")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(mode).contains("\"scenario\":\"healthy\"", "\"pid\":" + lab.pid());
            weaveTheHandlerBeforeItsFirstRequest(lab);
            HttpResponse<String> order = http.send(HttpRequest.newBuilder(URI.create(lab.baseUrl() + lab.scenario().path())).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(order.statusCode()).as(Files.readString(log)).isEqualTo(200);
            assertThat(lab.appLog()).as("the lab's own file log").exists();
            traceTheLabsOwnController(lab, http);
        } finally {
            lab.stop();
        }
        assertThat(lab.isAlive()).isFalse();
        assertThat(lab.appLog()).as("removed with the lab").doesNotExist();
        Files.deleteIfExists(log);
    }

    /**
     * Spring 6 reads a handler's parameter names at its first request, and before JDK 19 any
     * retransformation loses them (JDK-8240908) unless the agent puts them back (ParameterNames):
     * OrderController.get, woven and reset before anyone called it, then answered 500 to the
     * request that follows this.
     */
    private static void weaveTheHandlerBeforeItsFirstRequest(LabProcess lab) {
        Cli.Result monitor = Cli.run(60, "exec", String.valueOf(lab.pid()), "monitor io.culprit.lab.orders.OrderController get -c 1 -n 1");
        assertThat(monitor.code).as(monitor.toString()).isZero();
    }

    /**
     * The lab is a target like any other: the verdicts' confirm commands trace its classes
     * ({@code trace io.culprit.lab.products.KeywordsController add}), which the agent once refused
     * as its own. A wrong package gets the packages beside it.
     */
    private static void traceTheLabsOwnController(LabProcess lab, HttpClient http) throws Exception {
        HttpRequest get = HttpRequest.newBuilder(URI.create(lab.baseUrl() + lab.scenario().path())).build();
        Thread requests = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    http.send(get, HttpResponse.BodyHandlers.discarding());
                    Thread.sleep(50);  // a trickle of calls for the trace to catch, not load
                } catch (InterruptedException e) {
                    return;
                } catch (java.io.IOException e) {
                    // the trace's result decides; a refused request here only means fewer calls
                }
            }
        }, "lab-requests");
        requests.setDaemon(true);
        requests.start();
        try {
            String pid = String.valueOf(lab.pid());
            Cli.Result trace = Cli.run(60, "exec", pid, "trace io.culprit.lab.orders.OrderController get -n 1");
            assertThat(trace.code).as(trace.toString()).isZero();
            assertThat(trace.out).as(trace.toString()).contains("io.culprit.lab.orders.OrderController", "get(");
            Cli.Result typo = Cli.run(60, "exec", pid, "trace io.culprit.lab.order.* get -n 1");
            assertThat(typo.code).as(typo.toString()).isNotZero();
            assertThat(typo.err.strip()).as(typo.toString()).doesNotContain("\n")
                    .contains("no class matches 'io.culprit.lab.order.*'", "packages loaded under io.culprit.lab: ")
                    .contains("io.culprit.lab.orders");
            assertThat(Cli.run(60, "exec", pid, "stop").code).isZero();
        } finally {
            requests.interrupt();
            requests.join(5_000);
        }
    }
}
