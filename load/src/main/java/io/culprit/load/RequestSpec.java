package io.culprit.load;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One kind of request the generator sends: method, absolute http URL, extra headers, body, and
 * its weight among the plan's requests (picked at random in proportion to weight).
 */
public record RequestSpec(String method, URI uri, Map<String, String> headers, byte[] body, double weight) {

    public RequestSpec {
        if (method == null || !method.matches("[A-Za-z]+")) {
            throw new LoadException("bad HTTP method: " + method);
        }
        method = method.toUpperCase(Locale.ROOT);
        uri = checkUrl(uri);
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers == null ? Map.of() : headers));
        body = body == null ? new byte[0] : body.clone();
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new LoadException("weight must be a positive number, got " + weight + " for " + uri);
        }
    }

    /** A GET of {@code url} with weight 1. */
    public static RequestSpec get(String url) {
        return new RequestSpec("GET", parseUrl(url), Map.of(), null, 1);
    }

    /** Parses an absolute http URL; anything else is a one-line {@link LoadException}. */
    public static URI parseUrl(String url) {
        try {
            return checkUrl(new URI(url));
        } catch (java.net.URISyntaxException e) {
            throw new LoadException("malformed URL: " + url + " (" + e.getReason() + ")");
        }
    }

    private static URI checkUrl(URI uri) {
        if (uri == null) {
            throw new LoadException("missing URL");
        }
        String scheme = uri.getScheme();
        if (scheme == null || uri.getHost() == null) {
            throw new LoadException("malformed URL: " + uri + " (need http://host[:port]/path)");
        }
        if (!scheme.equalsIgnoreCase("http")) {
            // TLS would measure the handshake and cipher cost of this JVM too; loopback targets don't need it.
            throw new LoadException("unsupported scheme " + scheme + " in " + uri + " (only http)");
        }
        if (uri.getPort() > 65535) {
            throw new LoadException("malformed URL: " + uri + " (bad port)");
        }
        return uri;
    }

    /** Port of the URL, defaulting to 80. */
    public int port() {
        return uri.getPort() < 0 ? 80 : uri.getPort();
    }

    /** Path and query as sent on the request line. */
    public String target() {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    @Override
    public String toString() {
        return method + " " + uri + (weight == 1 ? "" : " weight=" + weight);
    }
}
