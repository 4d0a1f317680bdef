package io.culprit.agent.instrument;

import io.culprit.agent.command.CommandContext;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.agent.ByteBuddyAgent;

/** A context that records output, can be cancelled, and runs a command on its own thread. */
final class FakeContext implements CommandContext {

    static final Instrumentation INST = ByteBuddyAgent.install();

    final List<String> lines = new CopyOnWriteArrayList<>();
    final List<Object> data = new CopyOnWriteArrayList<>();
    private final List<Runnable> cleanups = new ArrayList<>();
    private final CountDownLatch started = new CountDownLatch(1);
    private final boolean json;
    private volatile boolean cancelled;
    private Thread thread;
    volatile Throwable failure;

    FakeContext() {
        this(false);
    }

    FakeContext(boolean json) {
        this.json = json;
    }

    @Override public boolean json() { return json; }
    @Override public int width() { return 120; }
    @Override public void println(String text) { lines.add(text); started.countDown(); }
    @Override public void data(Object value) { data.add(value); }
    @Override public boolean cancelled() { return cancelled; }
    @Override public synchronized void onCancel(Runnable cleanup) { cleanups.add(cleanup); }
    @Override public Instrumentation instrumentation() { return INST; }

    /** Starts the command and returns once it printed its first line (installed, or failed). */
    FakeContext start(io.culprit.agent.command.Command command, String... args) throws InterruptedException {
        thread = new Thread(() -> {
            try {
                command.run(List.of(args), this);
            } catch (Throwable t) {
                failure = t;
            } finally {
                started.countDown();
                runCleanups();
            }
        }, "command-" + command.name());
        thread.start();
        if (!started.await(20, TimeUnit.SECONDS)) {
            throw new AssertionError("command printed nothing");
        }
        if (failure != null) {
            throw new AssertionError("command failed: " + failure.getMessage(), failure);
        }
        return this;
    }

    void cancel() {
        cancelled = true;
    }

    /** Waits for the command to end by itself (its -n limit); fails the test after 20 s. */
    String await() throws InterruptedException {
        thread.join(20_000);
        if (thread.isAlive()) {
            cancel();
            thread.join(5_000);
            throw new AssertionError("command still running; output:\n" + String.join("\n", lines));
        }
        return String.join("\n", lines);
    }

    private synchronized void runCleanups() {
        cleanups.forEach(Runnable::run);
    }
}
