package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import io.ktor.client.HttpClient;
import io.ktor.client.HttpClientKt;
import io.ktor.client.engine.cio.CIO;
import java.util.Map;
import kotlin.Unit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ktor 3's client on its CIO engine, called from Java as a Kotlin caller would (acme.PartnerCalls),
 * against a JDK HttpServer whose /slow answers after 80 ms and /broken with a 503. The client is
 * used once before the probes start, as in a service that has served traffic.
 */
class KtorClientProbeTest {

    private RemoteStub remote;
    private HttpClient client;

    @BeforeEach
    void start() throws Exception {
        remote = new RemoteStub();
        client = HttpClientKt.HttpClient(CIO.INSTANCE, config -> Unit.INSTANCE);
    }

    @AfterEach
    void stop() {
        Instrumenter.resetAll();
        Probes.stop();
        client.close();
        remote.close();
    }

    @Test
    void suspendedCallsAreTimedFromRequestToResponseWithTheirCallerAndServerErrors() throws Exception {
        acme.PartnerCalls.get(client, remote.base + "/slow");  // loads the client's classes before the weave
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(KtorClientHooks.REQUEST_DATA + ".<init>"))
                .anyMatch(w -> w.startsWith(KtorClientHooks.CLIENT_CALL + ".<init>"));
        assertThat(acme.PartnerCalls.get(client, remote.base + "/slow")).isEqualTo(200);
        assertThat(acme.PartnerCalls.get(client, remote.base + "/slow?sku=7")).isEqualTo(200);
        assertThat(acme.PartnerCalls.get(client, remote.base + "/broken")).isEqualTo(503);

        Map<String, Object> slow = CallRows.waitForRow(p, "http", "GET " + remote.base + "/slow", 2L);
        assertThat(slow).containsEntry("count", 2L).containsEntry("errors", 0L).containsEntry("eventLoopMs", 0.0);
        assertThat((Double) slow.get("maxMs")).isBetween(80.0, 2_000.0);
        assertThat((String) slow.get("caller")).startsWith("acme.PartnerCalls.");
        assertThat(CallRows.waitForRow(p, "http", "GET " + remote.base + "/broken", 1L)).containsEntry("errors", 1L);
    }
}
