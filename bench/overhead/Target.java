import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * Overhead-bench target: a JDK HttpServer whose handler does its work in one method,
 * {@link #process}, that calls three small methods. Every tool instruments {@code process}, so
 * the target has no framework in the way and the difference between phases is the tool's cost.
 * Compiled by the bench scripts into a temp dir. Usage: java Target PORT [THREADS]
 */
public class Target {
    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        // Without TCP_NODELAY, headers and body leave as two segments and delayed ACK adds 40 ms.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        server.createContext("/", Target::handle);
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.start();
        System.out.println("listening on " + port);
    }

    static void handle(HttpExchange ex) throws IOException {
        String query = ex.getRequestURI().getRawQuery();
        byte[] body = process(query == null ? "id=42" : query).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
        ex.close();
    }

    /** The method every tool traces, watches and monitors. */
    public static String process(String query) {
        int id = parse(query);
        long score = compute(id);
        return render(id, score);
    }

    static int parse(String query) {
        int eq = query.indexOf('=');
        try {
            return Integer.parseInt(eq < 0 ? query : query.substring(eq + 1));
        } catch (NumberFormatException e) {
            return query.hashCode() & 0xffff;
        }
    }

    // A few microseconds of real work, so the handler is not only HTTP plumbing.
    static long compute(int id) {
        long h = id;
        for (int i = 0; i < 2_000; i++) {
            h = h * 6364136223846793005L + 1442695040888963407L;
            h ^= h >>> 29;
        }
        return h;
    }

    static String render(int id, long score) {
        return "{\"id\":" + id + ",\"score\":" + score + "}\n";
    }
}
