package io.culprit.agent.command;

import java.util.List;

/**
 * One console command inside the target (dashboard, thread, trace, ...). One class per command,
 * with its usage and examples beside the code. Implementations are stateless singletons found
 * through {@code META-INF/services/io.culprit.agent.command.Command}; state for one run lives in
 * locals or in objects registered with {@link CommandContext#onCancel}.
 */
public interface Command {

    /** The word the user types, e.g. {@code "thread"}. */
    String name();

    /** One line for the command list. */
    String summary();

    /** Usage and examples, shown by {@code help NAME} and on a usage error. */
    String usage();

    /**
     * Runs until done or until the context is cancelled (Ctrl-C, the client went away, the
     * overhead breaker). Bad input is reported by throwing {@link CommandException} with a
     * one-line message naming the problem; nothing in the target may have changed by then.
     *
     * @param args the words after the command name, quotes already removed
     */
    void run(List<String> args, CommandContext ctx) throws Exception;
}
