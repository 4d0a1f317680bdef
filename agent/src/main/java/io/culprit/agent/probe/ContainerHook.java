package io.culprit.agent.probe;

/**
 * A servlet container's request entry point (Tomcat, Jetty, Undertow): timed, and the request
 * counted at its exit with the response's status. The containers differ only in where that status
 * is read and in what else they note at exit, so each supplies just those.
 */
abstract class ContainerHook extends Hook {

    private final RequestProbe requests;

    /** @param reads the values {@link #status} and {@link #exited} read ({@link Hook#SELF}, ARG0, ARG1) */
    ContainerHook(RequestProbe requests, String className, String method, String descriptorPrefix, int reads) {
        super(className, method, descriptorPrefix, Hook.TIMED | reads);
        this.requests = requests;
    }

    /** The response's status code, NaN when it cannot be read. */
    abstract double status(Object self, Object arg0, Object arg1);

    /** After the request was counted: Jetty hands its server's pool to the pool probe here. */
    void exited(Object self) { }

    @Override
    public long probeEnter(int id, Object self, Object arg0) {
        return requests.containerEnter();
    }

    @Override
    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
        long end = System.nanoTime();
        requests.containerExit(start, end, status(self, arg0, arg1), thrown);
        exited(self);
    }
}
