package io.culprit.agent.instrument;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import java.util.List;
import java.util.Map;

/** Removes every trace/watch/stack/monitor weaving: classes return to their original bytecode. */
public final class ResetCommand implements Command {

    @Override
    public String name() {
        return "reset";
    }

    @Override
    public String summary() {
        return "remove all method instrumentation (running trace/watch/stack/monitor end)";
    }

    @Override
    public String usage() {
        return "reset\n  Restores the original bytecode of every class woven by trace, watch, stack or monitor.";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws Exception {
        if (!args.isEmpty()) {
            throw new CommandException("reset takes no arguments");
        }
        int commands = Instrumenter.liveCount();
        int classes = Instrumenter.resetAll();
        if (ctx.json()) {
            ctx.data(Map.of("commands", commands, "classes", classes));
        } else {
            ctx.println(String.format("Affect(class count: %d), %d command(s) ended", classes, commands));
        }
    }
}
