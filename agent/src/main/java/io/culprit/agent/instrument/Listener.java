package io.culprit.agent.instrument;

/**
 * What one command does with the events of the ids it owns. Called on application threads from
 * woven code: implementations must be fast, thread-safe and allocation-free on the paths their
 * command does not need. Every hook defaults to nothing.
 */
public abstract class Listener {

    public long enter(int id) {
        return System.nanoTime();
    }

    public void exit(int id, long start, Throwable thrown) { }

    public long enterArgs(int id, Object self, Object[] args) {
        return System.nanoTime();
    }

    public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) { }

    /**
     * A framework probe's entry ({@code ProbeAdvice}): only the values its plan said it reads, the
     * others null. No clock by default: a probe that times its method reads one itself.
     */
    public long probeEnter(int id, Object self, Object arg0) {
        return 0L;
    }

    public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) { }

    public void beforeCall(int site) { }

    public void afterCall(int site) { }
}
