package io.culprit.agent.command;

import java.lang.instrument.Instrumentation;

/** What a running command may use and where its output goes. */
public interface CommandContext {

    /** True when the client asked for JSON: emit {@link #data} rather than formatted text. */
    boolean json();

    /** Terminal width of the client, for formatting tables (80 when unknown). */
    int width();

    /** A line (or block) of human-readable output, sent to the client at once. */
    void println(String text);

    /** A structured result (maps, lists, strings, numbers, booleans) for {@code --json}. */
    void data(Object value);

    /** True once the user pressed Ctrl-C, the client disconnected, or the agent is stopping. */
    boolean cancelled();

    /** Runs when the command is cancelled or finishes, e.g. to remove its instrumentation. */
    void onCancel(Runnable cleanup);

    Instrumentation instrumentation();
}
