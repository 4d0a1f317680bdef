package io.culprit.jfr;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.model.Table;
import jakarta.servlet.http.HttpServlet;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Sleeps and socket reads below a request entry are the request's waits, by the code that waited;
 * the same sleeps on a thread that serves no request are not.
 */
class RequestWaitsTest {

    @Test
    void waitsBelowARequestEntryAreCountedByTheirSiteAndBackgroundSleepsAreNot() throws Exception {
        try (ServerSocket backend = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> answerSlowly(backend), "slow-backend");
            server.setDaemon(true);
            server.start();
            Thread background = new Thread(() -> sleepMany(20), "housekeeping");
            Path jfr = Recordings.record(() -> {
                background.start();
                new HttpServlet().service(() -> {
                    sleepMany(20);
                    for (int i = 0; i < 10; i++) quote(backend.getLocalPort());
                });
                background.join();
            });
            Table t = JfrFiles.read(jfr).tables(new io.culprit.jfr.collect.Observation(0, Long.MAX_VALUE / 2, 0)).get("request-waits");
            assertThat(t).isNotNull();
            System.out.println("request-waits: " + t.rows());
            assertThat(t.rows()).hasSize(2);
            int sleep = t.text(0, "kind").equals("sleep") ? 0 : 1;
            assertThat(t.text(sleep, "site")).isEqualTo(RequestWaitsTest.class.getName() + ".sleepMany");
            assertThat(t.number(sleep, "events")).as("the request's sleeps, not the housekeeping thread's").isEqualTo(20);
            assertThat(t.number(sleep, "waitMs")).isBetween(20 * 5.0, 20 * 50.0);
            int socket = 1 - sleep;
            assertThat(t.text(socket, "kind")).isEqualTo("socket");
            assertThat(t.text(socket, "target")).endsWith(":" + backend.getLocalPort());
            assertThat(t.text(socket, "site")).isEqualTo(RequestWaitsTest.class.getName() + ".quote");
            assertThat(t.number(socket, "events")).isEqualTo(10);
            // Every answer takes the backend's 20 ms: the shortest wait is near it, and no longer than the longest.
            assertThat(t.number(socket, "minMs")).isGreaterThanOrEqualTo(15.0).isLessThanOrEqualTo(t.number(socket, "maxMs"));
        }
    }

    @Test
    void anEventLoopsSleepsAreTheRequestsWhateverItsStack() throws Exception {
        // Reactor Netty's loop thread, named as its factory names it; no servlet on its stack.
        Thread loop = new Thread(() -> sleepMany(10), "reactor-http-epoll-3");
        Thread other = new Thread(() -> sleepMany(10), "parallel-1");
        Path jfr = Recordings.record(() -> {
            loop.start();
            other.start();
            loop.join();
            other.join();
        });
        Table t = JfrFiles.read(jfr).tables(new io.culprit.jfr.collect.Observation(0, Long.MAX_VALUE / 2, 0)).get("request-waits");
        assertThat(t.rows()).as("the loop's sleeps only").hasSize(1);
        assertThat(t.text(0, "site")).isEqualTo(RequestWaitsTest.class.getName() + ".sleepMany");
        assertThat(t.number(0, "events")).isEqualTo(10);
        assertThat(t.number(0, "eventLoop")).isEqualTo(10);
    }

    @Test
    void socketWaitsInsideTasksARequestCanAwaitAreTaskWaitsWithoutTheirSleeps() throws Exception {
        try (ServerSocket backend = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> answerSlowly(backend), "slow-backend");
            server.setDaemon(true);
            server.start();
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                Path jfr = Recordings.record(() -> {
                    for (int i = 0; i < 5; i++) {
                        java.util.concurrent.CompletableFuture.runAsync(() -> {
                            sleepMany(1);
                            quote(backend.getLocalPort());
                        }, pool).join();
                    }
                });
                java.util.Map<String, Table> tables = JfrFiles.read(jfr).tables(new io.culprit.jfr.collect.Observation(0, Long.MAX_VALUE / 2, 0));
                Table tasks = tables.get("task-waits");
                assertThat(tasks.rows()).as("the socket waits, not the sleeps: %s", tasks.rows()).hasSize(1);
                assertThat(tasks.text(0, "kind")).isEqualTo("socket");
                assertThat(tasks.text(0, "site")).isEqualTo(RequestWaitsTest.class.getName() + ".quote");
                assertThat(tasks.number(0, "events")).isEqualTo(5);
                assertThat(tables.get("request-waits").rows()).as("no request entry on these threads").isEmpty();
            } finally {
                pool.shutdown();
            }
        }
    }

    private static void sleepMany(int n) {
        for (int i = 0; i < n; i++) {
            try {
                Thread.sleep(6);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void quote(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.getOutputStream().write('Q');
            s.getOutputStream().flush();
            if (s.getInputStream().read() < 0) throw new IllegalStateException("no answer");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Answers each connection's byte after 20 ms: a dependency slower than JFR's 5 ms I/O threshold. */
    private static void answerSlowly(ServerSocket backend) {
        while (!backend.isClosed()) {
            try (Socket c = backend.accept(); InputStream in = c.getInputStream(); OutputStream out = c.getOutputStream()) {
                in.read();
                Thread.sleep(20);
                out.write('A');
                out.flush();
            } catch (Exception e) {
                return;
            }
        }
    }
}
