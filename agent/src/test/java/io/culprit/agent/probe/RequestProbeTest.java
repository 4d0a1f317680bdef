package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import jakarta.servlet.Filter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * Handler vs container time on a real embedded Tomcat with Spring MVC: a filter in front of the
 * DispatcherServlet adds 50 ms, which must show as container time outside the handler.
 */
class RequestProbeTest {

    private static final long FILTER_MS = 50;

    @Configuration
    @EnableWebMvc
    static class Web { }

    @RestController
    static class Orders {
        @GetMapping("/orders/{id}")
        String order(@PathVariable("id") String id) {
            return "order " + id;
        }
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void aSlowFilterShowsAsContainerTimeOutsideTheHandler() throws Exception {
        java.util.concurrent.atomic.LongAdder filterNs = new java.util.concurrent.atomic.LongAdder();
        Path base = Files.createTempDirectory("probe-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        Context ctx = tomcat.addContext("", base.toString());
        AnnotationConfigWebApplicationContext spring = new AnnotationConfigWebApplicationContext();
        spring.register(Web.class, Orders.class);
        Tomcat.addServlet(ctx, "dispatcher", new DispatcherServlet(spring)).setLoadOnStartup(1);
        ctx.addServletMappingDecoded("/", "dispatcher");
        FilterDef slow = new FilterDef();
        slow.setFilterName("slow");
        slow.setFilter((Filter) (req, resp, chain) -> {
            long t0 = System.nanoTime();
            try {
                Thread.sleep(FILTER_MS);  // the filter's own work, which the handler never sees
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            filterNs.add(System.nanoTime() - t0);
            chain.doFilter(req, resp);
        });
        ctx.addFilterDef(slow);
        FilterMap map = new FilterMap();
        map.setFilterName("slow");
        map.addURLPattern("/*");
        ctx.addFilterMap(map);
        tomcat.getConnector();
        tomcat.start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            String base0 = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
            get(http, base0 + "/orders/1");  // loads the classes the probes weave
            Probes p = Probes.ensure(ProbeContext.INST);
            filterNs.reset();
            for (int i = 0; i < 10; i++) get(http, base0 + "/orders/" + i);
            double filterMs = filterNs.sum() / 1e6 / 10;  // what the filter really took (sleep overshoots on a busy machine)
            // The container records a request when its service() returns, a moment after the client got the response.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (p.requests.count() < 10 && System.nanoTime() < deadline) Thread.sleep(5);
            Map<String, Object> route = p.requests.routeRows().get(0);
            assertThat(route).containsEntry("route", "GET /orders/{id}").containsEntry("count", 10L);
            double handler = (double) route.get("handlerMs");
            double below = (double) route.get("belowHandlerMs");
            assertThat(below).isGreaterThanOrEqualTo(filterMs).isLessThan(filterMs + 30);
            assertThat(handler).isLessThan(below);
            assertThat(ProbeContext.run(new RequestsCommand(), false).text()).containsPattern("GET /orders/\\{id\\}\\s+10\\s");
            // Tomcat's pool, from the adapter's connector: its class is not woven (AppExecutors.WORKER_LOCK says why).
            assertThat(p.pools.describe()).anyMatch(r -> String.valueOf(r.get("pool")).startsWith("tomcat"));
            assertThat(p.woven).noneMatch(w -> w.startsWith(ContainerPools.TOMCAT_EXECUTOR));
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private static void get(HttpClient http, String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
}
