package io.culprit.agent.profile;

import io.culprit.agent.command.CommandContext;
import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records a command's output in-process; runs it on the caller's thread. */
final class TestContext implements CommandContext {
    final List<String> lines = new CopyOnWriteArrayList<>();
    final List<Object> data = new CopyOnWriteArrayList<>();

    @Override public boolean json() { return false; }
    @Override public int width() { return 120; }
    @Override public void println(String text) { lines.add(text); }
    @Override public void data(Object value) { data.add(value); }
    @Override public boolean cancelled() { return false; }
    @Override public void onCancel(Runnable cleanup) { }
    @Override public Instrumentation instrumentation() { return null; }

    String text() {
        return String.join("\n", lines);
    }
}
