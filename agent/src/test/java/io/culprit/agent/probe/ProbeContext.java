package io.culprit.agent.probe;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.agent.ByteBuddyAgent;

/** Runs one probe command in this JVM (self-attached) and keeps what it printed or returned. */
final class ProbeContext implements CommandContext {

    static final Instrumentation INST = ByteBuddyAgent.install();

    private final boolean json;
    final List<String> lines = new ArrayList<>();
    final List<Object> data = new ArrayList<>();

    private ProbeContext(boolean json) {
        this.json = json;
    }

    static ProbeContext run(Command c, boolean json, String... args) throws Exception {
        ProbeContext ctx = new ProbeContext(json);
        c.run(List.of(args), ctx);
        return ctx;
    }

    String text() {
        return String.join("\n", lines);
    }

    @Override public boolean json() { return json; }
    @Override public int width() { return 160; }
    @Override public void println(String text) { lines.add(text); }
    @Override public void data(Object value) { data.add(value); }
    @Override public boolean cancelled() { return false; }
    @Override public void onCancel(Runnable cleanup) { }
    @Override public Instrumentation instrumentation() { return INST; }
}
