package io.culprit.agent.probe;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The remote service the outbound-HTTP probe tests call: a JDK HttpServer on loopback whose
 * {@code /slow} answers after 80 ms and {@code /broken} with a 503.
 */
final class RemoteStub implements AutoCloseable {
    final HttpServer server;
    final String base;

    RemoteStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/slow", x -> {
            try {
                Thread.sleep(80);  // the remote service's own latency, which the probe must see
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        server.createContext("/broken", x -> {
            x.sendResponseHeaders(503, -1);
            x.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
