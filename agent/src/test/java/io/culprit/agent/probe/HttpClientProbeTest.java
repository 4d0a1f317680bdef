package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import java.util.Map;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Outbound HTTP through the real Apache HttpClient 5 and OkHttp 4 against a JDK HttpServer whose
 * /slow answers after 80 ms and /broken with a 503. Each client is used once before the probes
 * start, as in a service that has served traffic (only loaded classes are woven).
 */
class HttpClientProbeTest {

    private RemoteStub remote;
    private String base;

    @BeforeEach
    void start() throws Exception {
        remote = new RemoteStub();
        base = remote.base;
    }

    @AfterEach
    void stop() {
        Instrumenter.resetAll();
        Probes.stop();
        remote.close();
    }

    @Test
    void apacheHttpClientCallsAreTimedWithTheirUrlAndServerErrors() throws Exception {
        try (CloseableHttpClient client = HttpClients.createDefault()) {
            get(client, base + "/slow");  // loads the client's classes before the weave
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(ApacheHttpHooks.INTERNAL_CLIENT + ".doExecute"));
            p.thresholds.httpMs = 50;
            get(client, base + "/slow");
            get(client, base + "/slow");
            get(client, base + "/broken");
            // a request with a path only, its host given beside it
            client.execute(HttpHost.create(base), new HttpGet("/slow?user=7"), r -> { EntityUtils.consume(r.getEntity()); return r.getCode(); });

            Map<String, Object> slow = CallRows.row(p, "http", "GET " + base + "/slow");
            assertThat(slow).containsEntry("count", 3L).containsEntry("errors", 0L).containsEntry("slowCount", 3L);
            assertThat((Double) slow.get("maxMs")).isGreaterThanOrEqualTo(80.0);
            assertThat(CallRows.row(p, "http", "GET " + base + "/broken")).containsEntry("count", 1L).containsEntry("errors", 1L);
            assertThat(p.calls.alerts()).anyMatch(a -> ("GET " + base + "/slow?user=7").equals(a.get("text")));
        }
    }

    @Test
    void okHttpCallsAreTimedWithTheirUrlAndServerErrors() throws Exception {
        OkHttpClient client = new OkHttpClient();
        get(client, base + "/slow");  // loads RealCall before the weave
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(OkHttpHooks.REAL_CALL + ".getResponseWithInterceptorChain"));
        get(client, base + "/slow");
        get(client, base + "/slow");
        get(client, base + "/broken");

        Map<String, Object> slow = CallRows.row(p, "http", "GET " + base + "/slow");
        assertThat(slow).containsEntry("count", 2L).containsEntry("errors", 0L);
        assertThat((Double) slow.get("maxMs")).isGreaterThanOrEqualTo(80.0);
        assertThat(CallRows.row(p, "http", "GET " + base + "/broken")).containsEntry("count", 1L).containsEntry("errors", 1L);
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }

    private static void get(CloseableHttpClient client, String url) throws Exception {
        client.execute(new HttpGet(url), r -> { EntityUtils.consume(r.getEntity()); return r.getCode(); });
    }

    private static void get(OkHttpClient client, String url) throws Exception {
        try (Response r = client.newCall(new Request.Builder().url(url).build()).execute()) {
            r.body().close();
        }
    }
}
