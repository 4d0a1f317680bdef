package io.culprit.load;

/** Public face of {@link TestServer} for tests in other packages. */
public final class TestServerHandle implements AutoCloseable {

    private final TestServer server;

    private TestServerHandle(TestServer server) {
        this.server = server;
    }

    public static TestServerHandle start(long serviceMillis) {
        return new TestServerHandle(new TestServer(serviceMillis));
    }

    /** Requests received so far. */
    public long requests() {
        return server.requests.get();
    }

    public String url(String path) {
        return server.url(path);
    }

    @Override
    public void close() {
        server.close();
    }
}
