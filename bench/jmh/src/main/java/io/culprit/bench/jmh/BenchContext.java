package io.culprit.bench.jmh;

import io.culprit.agent.command.CommandContext;
import java.lang.instrument.Instrumentation;
import java.util.concurrent.CountDownLatch;

/** A command context that discards output and signals once the command printed its first line. */
final class BenchContext implements CommandContext {

    final CountDownLatch installed = new CountDownLatch(1);
    private final Instrumentation inst;
    volatile boolean cancelled;
    volatile String lastLine;

    BenchContext(Instrumentation inst) {
        this.inst = inst;
    }

    @Override public boolean json() { return false; }
    @Override public int width() { return 120; }
    @Override public void println(String text) { lastLine = text; installed.countDown(); }
    @Override public void data(Object value) { }
    @Override public boolean cancelled() { return cancelled; }
    @Override public void onCancel(Runnable cleanup) { }
    @Override public Instrumentation instrumentation() { return inst; }
}
