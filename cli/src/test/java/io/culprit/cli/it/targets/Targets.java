package io.culprit.cli.it.targets;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** Shared plumbing of the IT targets: a loopback HTTP endpoint that proves the target still serves. */
final class Targets {
    private Targets() {
    }

    /** Starts GET /ping on an ephemeral loopback port and prints {@code PORT n}. */
    static void serve() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/ping", ex -> {
            byte[] body = "pong".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        server.start();
        System.out.println("PORT " + server.getAddress().getPort());
    }

    static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static void ready() throws InterruptedException {
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join(); // keep the JVM alive until the test kills it
    }
}
