package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import io.undertow.Undertow;
import io.undertow.server.Connectors;
import io.undertow.server.HttpServerExchange;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;
import io.undertow.servlet.util.ImmediateInstanceFactory;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.xnio.XnioWorker;

/**
 * The request probe on the other servlet containers, real Jetty 12 (ee10) and Undertow 2.3,
 * each serving Spring MVC behind a filter that adds 50 ms: that time must show as container time
 * outside the handler, a 503 as an error, the container's worker pool must be found, and reset
 * must leave the woven classes as they were.
 */
class ContainerProbeTest {

    private static final long FILTER_MS = 50;
    private static final int WORKERS = 12;

    @Configuration
    @EnableWebMvc
    static class Web { }

    @RestController
    static class Orders {
        @GetMapping("/orders/{id}")
        String order(@PathVariable("id") String id) {
            return "order " + id;
        }

        @GetMapping("/broken")
        ResponseEntity<String> broken() {
            return ResponseEntity.status(503).body("down");
        }
    }

    /** The filter's own work, which the handler never sees; it keeps what it really took (sleep overshoots on a busy machine). */
    static final class SlowFilter implements Filter {
        final LongAdder ns = new LongAdder();

        @Override
        public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain) throws java.io.IOException, jakarta.servlet.ServletException {
            long t0 = System.nanoTime();
            try {
                Thread.sleep(FILTER_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ns.add(System.nanoTime() - t0);
            chain.doFilter(req, resp);
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /**
     * Spring's logging (and jboss-logging, Undertow's) started log4j2's context for this class
     * loader with its default configuration; stopping it lets a later test configure its own.
     */
    @AfterAll
    static void releaseLog4j() {
        Configurator.shutdown((LoggerContext) LogManager.getContext(ContainerProbeTest.class.getClassLoader(), false));
    }

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void jettyRequestsSplitHandlerFromContainerTimeAndItsPoolIsFound() throws Exception {
        SlowFilter filter = new SlowFilter();
        Server server = new Server(new QueuedThreadPool(WORKERS, 4));
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(new ServletHolder(new DispatcherServlet(spring())), "/");
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        server.setHandler(context);
        server.start();
        try {
            Probes p = served("http://127.0.0.1:" + connector.getLocalPort(), filter, Server.class);
            assertThat(p.pools.describe()).anySatisfy(r -> assertThat(r)
                    .containsEntry("pool", "jetty QueuedThreadPool").containsEntry("total", (double) WORKERS));
            assertStopped(p);
        } finally {
            server.stop();
        }
    }

    @Test
    void undertowRequestsSplitHandlerFromContainerTimeAndItsWorkerIsFound() throws Exception {
        SlowFilter filter = new SlowFilter();
        DeploymentInfo info = Servlets.deployment().setClassLoader(getClass().getClassLoader())
                .setContextPath("/").setDeploymentName("probe-undertow")
                .addServlet(Servlets.servlet("dispatcher", DispatcherServlet.class,
                        new ImmediateInstanceFactory<>(new DispatcherServlet(spring()))).addMapping("/").setLoadOnStartup(1))
                .addFilter(Servlets.filter("slow", SlowFilter.class, new ImmediateInstanceFactory<>(filter)))
                .addFilterUrlMapping("slow", "/*", DispatcherType.REQUEST);
        DeploymentManager deployment = Servlets.newContainer().addDeployment(info);
        deployment.deploy();
        Undertow undertow = Undertow.builder().addHttpListener(0, "127.0.0.1").setIoThreads(1).setWorkerThreads(WORKERS)
                .setHandler(deployment.start()).build();
        undertow.start();
        try {
            int port = ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
            Probes p = served("http://127.0.0.1:" + port, filter, Connectors.class, HttpServerExchange.class, XnioWorker.class);
            assertThat(p.pools.describe()).anySatisfy(r -> assertThat(r)
                    .containsEntry("pool", "undertow " + undertow.getWorker().getClass().getSimpleName())
                    .containsEntry("total", (double) WORKERS));
            assertStopped(p);
        } finally {
            undertow.stop();
            deployment.stop();
            deployment.undeploy();
        }
    }

    private static AnnotationConfigWebApplicationContext spring() {
        AnnotationConfigWebApplicationContext spring = new AnnotationConfigWebApplicationContext();
        spring.register(Web.class, Orders.class);
        return spring;
    }

    /**
     * Ten requests through the slow filter and one 503, with the probes started after a first
     * request (only loaded classes are woven); {@code woven} must change while the probes are in.
     */
    private Probes served(String base, SlowFilter filter, Class<?>... woven) throws Exception {
        get(base + "/orders/0", 200);
        List<List<String>> original = new ArrayList<>();
        for (Class<?> c : woven) original.add(ClassFiles.code(c));
        Probes p = Probes.ensure(ProbeContext.INST);
        assertThat(p.serverWoven()).isTrue();
        for (Class<?> c : woven) assertThat(ClassFiles.code(c)).as(c.getName()).anyMatch(i -> i.contains("io/culprit/bootstrap/Bridge"));
        filter.ns.reset();
        for (int i = 1; i <= 10; i++) get(base + "/orders/" + i, 200);
        double filterMs = filter.ns.sum() / 1e6 / 10;
        get(base + "/broken", 503);
        // The container records a request when its call returns, a moment after the client got the response.
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (p.requests.count() < 11 && System.nanoTime() < deadline) Thread.sleep(5);
        assertThat(p.requests.count()).as("one count per request, not per container call").isEqualTo(11);

        Map<String, Object> route = p.requests.routeRows().stream().filter(r -> "GET /orders/{id}".equals(r.get("route")))
                .findFirst().orElseThrow(() -> new AssertionError(p.requests.routeRows()));
        assertThat(route).containsEntry("count", 10L);
        double handler = (double) route.get("handlerMs");
        double below = (double) route.get("belowHandlerMs");
        assertThat(below).isGreaterThanOrEqualTo(filterMs).isLessThan(filterMs + 30);
        assertThat(handler).isLessThan(below);
        assertThat(ProbeContext.run(new RequestsCommand(), false).text()).containsPattern("GET /orders/\\{id\\}\\s+10\\s");

        Instrumenter.resetAll();
        for (int i = 0; i < woven.length; i++) assertThat(ClassFiles.code(woven[i])).as(woven[i].getName()).isEqualTo(original.get(i));
        return p;
    }

    /** After the stop every window is written: exactly the one 503 is an error, and the pool's maximum is sampled. */
    private static void assertStopped(Probes p) {
        assertThat(Probes.stop()).isSameAs(p);
        double errors = Arrays.stream(p.windows.series("requests").column("errors").orElseThrow()).sum();
        assertThat(errors).isEqualTo(1.0);
        double[] max = p.windows.series("pools").column("containerMax").orElseThrow();
        // Windows that closed before the first request found the pool hold NaN (a loaded machine
        // stretches the requests over several), and a stream's max of a NaN is NaN.
        assertThat(Arrays.stream(max).filter(m -> !Double.isNaN(m)).max().orElseThrow()).isEqualTo(WORKERS);
    }

    private void get(String url, int status) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    }
}
