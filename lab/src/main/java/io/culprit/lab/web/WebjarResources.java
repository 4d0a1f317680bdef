package io.culprit.lab.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;

/**
 * The swagger-ui webjar as a static-resource set, with a time-to-live on its entry list.
 *
 * <p>Like Tomcat's webresources cache in seed 1, the list is revalidated when it is older than its
 * TTL, and revalidating a packed jar means streaming it: {@link JarInputStream#getNextJarEntry()}
 * inflates every entry (~11 MB here) to reach the next header. A request that arrives after an
 * idle gap longer than the TTL pays that scan. A jar's content cannot change while it is open, so
 * the fixed twin (TTL 0 = never expires) keeps the first list.
 */
public final class WebjarResources {

    /** A class-path resource that only the swagger-ui webjar contains. */
    static final String MARKER = "META-INF/maven/org.webjars/swagger-ui/pom.properties";

    private final URL jar;
    private volatile Listing listing;

    private WebjarResources(URL jar) {
        this.jar = jar;
    }

    /** Finds the webjar on the class path, plain or nested in the lab's fat jar. */
    public static WebjarResources swaggerUi(ClassLoader loader) {
        URL marker = loader.getResource(MARKER);
        if (marker == null) {
            throw new IllegalStateException("swagger-ui webjar not on the class path (" + MARKER + ")");
        }
        try {
            return new WebjarResources(((JarURLConnection) marker.openConnection()).getJarFileURL());
        } catch (IOException | ClassCastException e) {
            throw new IllegalStateException("cannot open the swagger-ui webjar from " + marker + ": " + e, e);
        }
    }

    /**
     * Whether the jar holds {@code path}; rescans the jar first when the listing is older than
     * {@code ttlNanos} (0: never).
     */
    public boolean contains(String path, long ttlNanos) {
        Listing l = listing;
        if (l == null || (ttlNanos > 0 && System.nanoTime() - l.scannedAt > ttlNanos)) {
            l = scan();
            listing = l;
        }
        return l.entries.contains(path);
    }

    private Listing scan() {
        Set<String> entries = new HashSet<>();
        try (InputStream raw = jar.openStream(); JarInputStream in = new JarInputStream(raw)) {
            for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                entries.add(e.getName());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + jar + ": " + e.getMessage(), e);
        }
        return new Listing(entries, System.nanoTime());
    }

    private record Listing(Set<String> entries, long scannedAt) {
    }
}
