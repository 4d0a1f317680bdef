package io.culprit.agent.command;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;

/** A CommandContext that records what a command printed, for in-process command tests. */
public final class FakeContext implements CommandContext {
    public final StringBuilder out = new StringBuilder();
    public final List<Object> data = new ArrayList<>();
    private final boolean json;

    public FakeContext(boolean json) {
        this.json = json;
    }

    @Override
    public boolean json() {
        return json;
    }

    @Override
    public int width() {
        return 120;
    }

    @Override
    public void println(String text) {
        out.append(text).append('\n');
    }

    @Override
    public void data(Object value) {
        data.add(value);
    }

    @Override
    public boolean cancelled() {
        return false;
    }

    @Override
    public void onCancel(Runnable cleanup) {
    }

    @Override
    public Instrumentation instrumentation() {
        return null;
    }
}
