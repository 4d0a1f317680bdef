package io.culprit.bootstrap;

/** The spy before install and after reset: leftover woven code then costs a call and nothing else. */
final class NoOpSpy implements Spy {
    @Override public long enter(int id) { return 0L; }
    @Override public void exit(int id, long start, Throwable thrown) { }
    @Override public long enterArgs(int id, Object self, Object[] args) { return 0L; }
    @Override public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) { }
    @Override public long probeEnter(int id, Object self, Object arg0) { return 0L; }
    @Override public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) { }
    @Override public void beforeCall(int site) { }
    @Override public void afterCall(int site) { }
}
