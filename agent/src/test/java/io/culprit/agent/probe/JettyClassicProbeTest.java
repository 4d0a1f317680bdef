package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Jetty 9.4 to 11 are timed at {@code Server.handle(HttpChannel)}: real Jetty 9.4 (copied to
 * target/jetty-9.4 by the build) in a class loader of its own, since the test class path's
 * Jetty 12 has classes of the same names. Driven through reflection with Jetty's own handlers:
 * a context that is unavailable answers 503, a path nobody handles 404.
 */
class JettyClassicProbeTest {

    private static final Path JARS = Path.of("target", "jetty-9.4");
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void jetty94RequestsAreCountedAtServerHandleWithTheirStatusAndPool() throws Exception {
        try (URLClassLoader jetty = childFirst()) {
            Class<?> serverClass = jetty.loadClass(JettyHooks.SERVER);
            assertThat(serverClass.getClassLoader()).isSameAs(jetty);
            Object server = serverClass.getConstructor(InetSocketAddress.class).newInstance(new InetSocketAddress("127.0.0.1", 0));
            Object down = jetty.loadClass("org.eclipse.jetty.server.handler.ContextHandler").getConstructor(String.class).newInstance("/down");
            serverClass.getMethod("setHandler", jetty.loadClass("org.eclipse.jetty.server.Handler")).invoke(server, down);
            serverClass.getMethod("start").invoke(server);
            try {
                down.getClass().getMethod("setAvailable", boolean.class).invoke(down, false);
                String base = "http://127.0.0.1:" + ((URI) serverClass.getMethod("getURI").invoke(server)).getPort();
                get(base + "/nothing", 404);  // loads the classes the probes weave
                List<String> original = ClassFiles.code(serverClass);
                Probes p = Probes.ensure(ProbeContext.INST);
                assertThat(p.woven).contains(JettyHooks.SERVER + ".handle(Lorg/eclipse/jetty/server/HttpChannel;)");
                assertThat(ClassFiles.code(serverClass)).anyMatch(i -> i.contains("io/culprit/bootstrap/Bridge"));

                for (int i = 0; i < 5; i++) get(base + "/nothing", 404);
                get(base + "/down/x", 503);
                get(base + "/down/y", 503);
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (p.requests.count() < 7 && System.nanoTime() < deadline) Thread.sleep(5);
                assertThat(p.requests.count()).isEqualTo(7);
                assertThat(p.requests.routeRows()).singleElement()
                        .satisfies(r -> assertThat(r).containsEntry("route", "(no handler)").containsEntry("count", 7L));
                // Server(InetSocketAddress) makes a QueuedThreadPool of Jetty's default size.
                assertThat(p.pools.describe()).anySatisfy(r -> assertThat(r)
                        .containsEntry("pool", "jetty QueuedThreadPool").containsEntry("total", 200.0));

                Instrumenter.resetAll();
                assertThat(ClassFiles.code(serverClass)).isEqualTo(original);
                assertThat(Probes.stop()).isSameAs(p);
                Map<String, double[]> requests = p.windows.series("requests").columns();
                assertThat(Arrays.stream(requests.get("errors")).sum()).as("the two 503s").isEqualTo(2.0);
            } finally {
                serverClass.getMethod("stop").invoke(server);
            }
        }
    }

    private void get(String url, int status) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url).isEqualTo(status);
    }

    /** Jetty's and the servlet API's classes from the copied jars first; everything else (the Bridge, SLF4J) from the test's loader. */
    private static URLClassLoader childFirst() throws IOException {
        assertThat(JARS).as("copied by the build (mvn generate-test-resources)").isDirectory();
        URL[] urls;
        try (Stream<Path> jars = Files.list(JARS)) {
            urls = jars.filter(j -> j.toString().endsWith(".jar")).map(j -> {
                try {
                    return j.toUri().toURL();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }).toArray(URL[]::new);
        }
        return new URLClassLoader(urls, JettyClassicProbeTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!own(name.replace('.', '/'))) return super.loadClass(name, resolve);
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c == null) c = findClass(name);
                    if (resolve) resolveClass(c);
                    return c;
                }
            }

            /** Child-first for resources too, as a web app's loader is: the agent reads a class's file through it. */
            @Override
            public URL getResource(String name) {
                URL url = own(name) ? findResource(name) : null;
                return url != null ? url : super.getResource(name);
            }

            private boolean own(String path) {
                return path.startsWith("org/eclipse/jetty/") || path.startsWith("javax/servlet/");
            }
        };
    }
}
