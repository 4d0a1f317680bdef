package io.culprit.agent.command.basic;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import java.util.List;
import java.util.Map;

/** {@code stop}: answers, then detaches (see {@link Lifecycle#stop()}). */
public final class StopCommand implements Command {
    @Override
    public String name() {
        return "stop";
    }

    @Override
    public String summary() {
        return "detach: undo all instrumentation, end agent threads, close the port";
    }

    @Override
    public String usage() {
        return "stop\n"
                + "  stop     the target keeps running exactly as before the attach";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws CommandException {
        Flags.parse(name(), args).atMostPositional(0);
        long pid = ProcessHandle.current().pid();
        HelpCommand.emit(ctx, "culprit agent detaching from pid " + pid, Map.of("detached", true, "pid", pid));
        // Last: the detach lets this command finish and send its end before the port closes.
        Lifecycle.stop();
    }
}
