package io.culprit.lab.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.culprit.lab.data.LabData;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The inventory service: a tiny in-process HTTP server on an ephemeral 127.0.0.1 port (JDK
 * HttpServer, no Spring MVC), answering {@code POST /inventory {"sku":..}} with the stock level.
 * It is deliberately cheap (well under a millisecond), like a fast remote service, so the cost of
 * a call is the caller's: converter-rebuild's codec.
 */
@Component
public class InventoryStub {

    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, Integer> stock = new ConcurrentHashMap<>();
    private final ExecutorService workers = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "inventory-stub");
        t.setDaemon(true);
        return t;
    });
    private final HttpServer server;

    public InventoryStub(LabData seeded, JdbcTemplate jdbc) {
        jdbc.query("SELECT sku, stock FROM products", rs -> {
            stock.put(rs.getString(1), rs.getInt(2));
        });
        // Without TCP_NODELAY the JDK server's separate header and body writes meet the client's
        // delayed ACK: ~40 ms per call that no real inventory service would add.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the inventory stub: " + e.getMessage(), e);
        }
        server.createContext("/inventory", this::answer);
        server.setExecutor(workers);
        server.start();
    }

    /** Base URL of the stub, e.g. http://127.0.0.1:40123. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void answer(HttpExchange ex) throws IOException {
        try (ex) {
            JsonNode query;
            try (InputStream in = ex.getRequestBody()) {
                query = json.readTree(in);
            }
            String sku = query.path("sku").asText();
            byte[] body = json.writeValueAsBytes(Map.of("sku", sku, "level", stock.getOrDefault(sku, 0)));
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @PreDestroy
    void stop() {
        server.stop(0);
        workers.shutdownNow();
    }
}
