package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.OkHttp3ClientHttpRequestFactory;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestTemplate;

/**
 * Outbound HTTP through the real Apache HttpClient 5 and OkHttp 4, alone and under Spring's
 * RestTemplate, against a JDK HttpServer whose
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
    void theWaitForAConnectionFromTheClientsOwnPoolIsCountedInTheCall() throws Exception {
        var manager = org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(1).setMaxConnTotal(1).build();
        try (CloseableHttpClient client = HttpClients.custom().setConnectionManager(manager).build()) {
            get(client, base + "/slow");  // loads the client's classes before the weave
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(ApacheHttpHooks.EXEC_RUNTIME + ".acquireEndpoint"));
            get(client, base + "/slow");
            double alone = (Double) CallRows.row(p, "http", "GET " + base + "/slow").get("poolWaitMs");
            // Three at once through one connection: the second waits one answer (80 ms), the third two.
            Thread[] ts = new Thread[3];
            for (int i = 0; i < ts.length; i++) {
                ts[i] = new Thread(() -> {
                    try {
                        get(client, base + "/slow");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                ts[i].start();
            }
            for (Thread t : ts) t.join();
            Map<String, Object> row = CallRows.row(p, "http", "GET " + base + "/slow");
            double waited = (Double) row.get("poolWaitMs") - alone;
            assertThat(row).containsEntry("count", 4L);
            assertThat(alone).as("one call alone waits for no connection").isLessThan(20.0);
            assertThat(waited).as("pool wait of the three").isBetween(200.0, (Double) row.get("totalMs"));
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

    /** An enqueued call runs on OkHttp's dispatcher threads; its caller is still the code that enqueued it. */
    @Test
    void anEnqueuedOkHttpCallIsTimedWithTheSiteThatEnqueuedIt() throws Exception {
        OkHttpClient client = new OkHttpClient();
        get(client, base + "/slow");
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(OkHttpHooks.REAL_CALL + ".enqueue"));
        assertThat(acme.QuoteFanOut.quote(client, base + "/slow?async").get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(200);

        Map<String, Object> row = CallRows.waitForRow(p, "http", "GET " + base + "/slow", 1L);
        assertThat((String) row.get("caller")).startsWith("acme.QuoteFanOut.quote:");
        assertThat((Double) row.get("maxMs")).isGreaterThanOrEqualTo(80.0);
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }

    /**
     * RestTemplate (and RestClient, the same request classes) on a client culprit also hooks: each
     * call counts once, with the 5xx that RestTemplate's error handler turns into an exception
     * after the round trip. Spring Boot backs them with Apache's or the JDK's client when present;
     * a plain {@code new RestTemplate()} uses HttpURLConnection, whose body stream RestTemplate asks
     * for after its execute() returned: a service saw every such call counted twice, once at ~0 ms.
     */
    @SuppressWarnings("deprecation")  // OkHttp3ClientHttpRequestFactory: deprecated, still what some services run
    @Test
    void aRestTemplateCallOnAHookedClientCountsOnceWithItsServerErrors() throws Exception {
        OkHttpClient ok = new OkHttpClient();
        RestTemplate[] templates = {new RestTemplate(new HttpComponentsClientHttpRequestFactory()),
                new RestTemplate(new OkHttp3ClientHttpRequestFactory(ok)),
                new RestTemplate(new JdkClientHttpRequestFactory()),
                // The default factory: HttpURLConnection, whose body RestTemplate reads after execute() returned.
                new RestTemplate()};
        boolean jdk = ProbeContext.BRIDGE_ON_BOOT_PATH;  // the JDK's clients are woven only then
        int clients = jdk ? 4 : 2;
        for (int i = 0; i < clients; i++) templates[i].getForObject(base + "/slow", String.class);  // loads the classes before the weave
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.woven).anyMatch(w -> w.startsWith(CallProbe.SPRING_HTTP_REQUEST + ".execute"))
                .anyMatch(w -> w.startsWith(ApacheHttpHooks.INTERNAL_CLIENT + ".doExecute"));
        for (int i = 0; i < clients; i++) {
            RestTemplate t = templates[i];
            t.getForObject(base + "/slow", String.class);
            t.getForObject(base + "/slow?user=" + i, String.class);
            assertThatThrownBy(() -> t.getForObject(base + "/broken", String.class)).isInstanceOf(HttpServerErrorException.class);
        }
        // The JDK's client would record on its own threads: a direct call after the others, once
        // seen, means any second record of theirs would have arrived too.
        get(ok, base + "/broken?direct");
        CallRows.waitForRow(p, "http", "GET " + base + "/broken", 1L + clients);

        assertThat(CallRows.row(p, "http", "GET " + base + "/slow")).containsEntry("count", 2L * clients).containsEntry("errors", 0L);
        assertThat(CallRows.row(p, "http", "GET " + base + "/broken")).containsEntry("count", 1L + clients)
                .containsEntry("errors", 1L + clients);
        ok.dispatcher().executorService().shutdown();
        ok.connectionPool().evictAll();
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
