package io.culprit.agent.probe;

/**
 * A servlet container's request entry point (Tomcat, Jetty, Undertow): timed, and the request
 * counted at its exit with the response's status. The containers differ only in where that status
 * is read and in where their worker pool hangs, so each supplies just those.
 */
abstract class ContainerHook extends Hook {

    private final RequestProbe requests;

    /** The receiver whose pool was looked up last: racy on purpose, the pool probe keeps one entry per pool. */
    private Object lastOwner;

    /** @param reads the values {@link #status} and {@link #poolOf} read ({@link Hook#SELF}, ARG0, ARG1) */
    ContainerHook(RequestProbe requests, String className, String method, String descriptorPrefix, int reads) {
        super(className, method, descriptorPrefix, Hook.TIMED | reads);
        this.requests = requests;
    }

    /** The response's status code, NaN when it cannot be read. */
    abstract double status(Object self, Object arg0, Object arg1);

    /**
     * The worker pool reachable from the hooked receiver (Tomcat's adapter, Jetty's server), null
     * when there is none: asked once per receiver, after a request of its was counted. Found here,
     * in a call every request makes anyway, never by weaving the pool's class
     * ({@link AppExecutors#WORKER_LOCK} says why).
     */
    Object poolOf(Object self) {
        return null;
    }

    @Override
    public long probeEnter(int id, Object self, Object arg0) {
        return requests.containerEnter();
    }

    @Override
    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
        long end = System.nanoTime();
        requests.containerExit(start, end, status(self, arg0, arg1), thrown);
        if (self != lastOwner) {
            lastOwner = self;
            requests.pools.containers.remember(poolOf(self));
        }
    }
}
