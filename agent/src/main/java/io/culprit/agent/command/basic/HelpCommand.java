package io.culprit.agent.command.basic;

import io.culprit.agent.channel.CommandRegistry;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.command.Format;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code help [command]}: the command list, or one command's usage and examples. */
public final class HelpCommand implements Command {
    @Override
    public String name() {
        return "help";
    }

    @Override
    public String summary() {
        return "list the commands, or show one command's usage";
    }

    @Override
    public String usage() {
        return "help [command]\n"
                + "  help           list every command with a one-line summary\n"
                + "  help thread    usage and examples of 'thread'";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws CommandException {
        List<String> words = Flags.parse(name(), args).atMostPositional(1).positional();
        // Loaded on demand: help is rare, and this keeps commands free of shared state.
        CommandRegistry registry = CommandRegistry.load(HelpCommand.class.getClassLoader());
        if (words.isEmpty()) {
            List<Map<String, Object>> list = new ArrayList<>();
            StringBuilder text = new StringBuilder("commands (help NAME for usage):\n");
            int width = 2 + registry.all().stream().mapToInt(c -> c.name().length()).max().orElse(0);
            for (Command c : registry.all()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", c.name());
                m.put("summary", c.summary());
                list.add(m);
                text.append("  ").append(Format.pad(c.name(), width)).append(c.summary()).append('\n');
            }
            emit(ctx, text.toString().stripTrailing(), Map.of("commands", list));
            return;
        }
        Command c = registry.get(words.get(0));
        if (c == null) {
            throw new CommandException("help: unknown command '" + words.get(0) + "' (try help)");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", c.name());
        m.put("summary", c.summary());
        m.put("usage", c.usage());
        emit(ctx, c.name() + " - " + c.summary() + "\n\n" + c.usage(), m);
    }

    static void emit(CommandContext ctx, String text, Object data) {
        if (ctx.json()) {
            ctx.data(data);
        } else {
            ctx.println(text);
        }
    }
}
