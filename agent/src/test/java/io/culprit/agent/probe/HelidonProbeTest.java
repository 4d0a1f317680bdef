package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.culprit.agent.instrument.Instrumenter;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests of a real Helidon 4 WebServer (on its virtual threads) and calls of Helidon's
 * WebClient: requests timed by route with numeric segments folded, a handler's exception (500)
 * an error; the client's calls timed to their response's head, a 5xx failed. Helidon 4 is built
 * for Java 21, so this test reaches it by reflection (the module compiles for 17) and runs on the
 * Temurin JDK (the agent's pom runs it there); on JDK 17 it skips itself.
 */
class HelidonProbeTest {

    private static final long ANSWER_MS = 60;

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void serverRequestsAndClientCallsAreTimed() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "Helidon 4 needs JDK 21+");
        Object server = startServer();
        Object client = call(type("io.helidon.webclient.api.WebClient"), null, "create");
        try {
            int port = (int) call(type("io.helidon.webserver.WebServer"), server, "port");
            String base = "http://127.0.0.1:" + port;
            assertThat(get(client, base + "/items/1")).isEqualTo(200);  // loads the classes the probes weave
            assertThat(get(client, base + "/fail")).isEqualTo(500);
            Probes p = Probes.ensure(ProbeContext.INST);
            assertThat(p.woven).anyMatch(w -> w.startsWith(HelidonHooks.ROUTING + ".route"));
            assertThat(p.woven).anyMatch(w -> w.startsWith(HelidonClientHooks.REQUEST + ".validateAndSubmit"));
            for (int i = 0; i < 10; i++) get(client, base + "/items/" + (100 + i));
            for (int i = 0; i < 3; i++) get(client, base + "/fail");

            assertThat(CallRows.until(() -> p.requests.count() >= 13)).as("13 requests counted, not " + p.requests.count()).isTrue();
            Map<String, Object> items = CallRows.route(p, "GET /items/{n}");
            assertThat(items).containsEntry("count", 10L);
            assertThat((Double) items.get("p50Ms")).isGreaterThanOrEqualTo(ANSWER_MS * 0.95);
            assertThat(CallRows.route(p, "GET /fail")).containsEntry("count", 3L);
            // A window closes every second: the errors are in the series once one has.
            assertThat(CallRows.until(() -> CallRows.requestErrors(p) == 3.0)).as("the handler threw 3 times, not " + CallRows.requestErrors(p)).isTrue();

            Map<String, Object> calls = CallRows.waitForRow(p, "http", "GET " + base + "/items/{n}", 10);
            assertThat(calls).containsEntry("count", 10L).containsEntry("errors", 0L);
            assertThat((Double) calls.get("totalMs")).as("each call waits for the handler").isGreaterThanOrEqualTo(10 * ANSWER_MS * 0.95);
            assertThat(CallRows.waitForRow(p, "http", "GET " + base + "/fail", 3)).containsEntry("errors", 3L);
        } finally {
            call(type("io.helidon.webserver.WebServer"), server, "stop");
        }
    }


    /** A server on an ephemeral port: {@code /items/{id}} answers after ANSWER_MS, {@code /fail} throws. */
    private static Object startServer() throws Exception {
        Class<?> rules = type("io.helidon.webserver.http.HttpRouting$Builder");
        Class<?> handler = type("io.helidon.webserver.http.Handler");
        Class<?> response = type("io.helidon.webserver.http.ServerResponse");
        Method get = rules.getMethod("get", String.class, Array.newInstance(handler, 0).getClass());
        Consumer<Object> routing = r -> {
            try {
                get.invoke(r, "/items/{id}", handlers(handler, (req, res) -> {
                    Thread.sleep(ANSWER_MS);  // the handler's own work, as a service's would take
                    response.getMethod("send", Object.class).invoke(res, "item");
                }));
                get.invoke(r, "/fail", handlers(handler, (req, res) -> {
                    throw new IllegalStateException("no");
                }));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        };
        Object builder = call(type("io.helidon.webserver.WebServer"), null, "builder");
        Class<?> base = type("io.helidon.webserver.ListenerConfig$BuilderBase");
        base.getMethod("host", String.class).invoke(builder, "127.0.0.1");
        base.getMethod("port", int.class).invoke(builder, 0);
        base.getMethod("routing", Consumer.class).invoke(builder, routing);
        Object server = builder.getClass().getMethod("build").invoke(builder);
        return call(type("io.helidon.webserver.WebServer"), server, "start");
    }

    private interface Body {
        void handle(Object request, Object response) throws Exception;
    }

    private static Object handlers(Class<?> handler, Body body) {
        Object h = Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler}, (proxy, m, args) -> {
            if (m.getName().equals("handle")) {
                body.handle(args[0], args[1]);
                return null;
            }
            if (m.getName().equals("toString")) return "test handler";
            if (m.getName().equals("hashCode")) return System.identityHashCode(proxy);
            if (m.getName().equals("equals")) return proxy == args[0];
            if (m.isDefault()) return java.lang.reflect.InvocationHandler.invokeDefault(proxy, m, args);  // beforeStart, afterStop
            throw new UnsupportedOperationException(m.getName());
        });
        Object array = Array.newInstance(handler, 1);
        Array.set(array, 0, h);
        return array;
    }

    /** GET through Helidon's WebClient; the response's status code. */
    private static int get(Object client, String url) throws Exception {
        Object request = type("io.helidon.webclient.api.HttpClient").getMethod("get", String.class).invoke(client, url);
        Object response = call(type("io.helidon.webclient.api.ClientRequest"), request, "request");
        try {
            Object status = call(type("io.helidon.webclient.api.HttpClientResponse"), response, "status");
            return (int) status.getClass().getMethod("code").invoke(status);
        } finally {
            call(type("io.helidon.webclient.api.HttpClientResponse"), response, "close");
        }
    }

    private static Class<?> type(String name) throws ClassNotFoundException {
        return Class.forName(name);
    }

    /** A no-argument public method, through the public type that declares it. */
    private static Object call(Class<?> type, Object target, String name) throws Exception {
        try {
            Method m = type.getMethod(name);
            m.setAccessible(true);  // declared by a package-private interface of Helidon's (ClientResponseBase)
            return m.invoke(target);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
    }
}
