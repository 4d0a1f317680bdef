package io.culprit.agent.command.basic;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/** {@code sysprop [key]}: the target's system properties. Read-only: it never sets one. */
public final class SyspropCommand implements Command {
    @Override
    public String name() {
        return "sysprop";
    }

    @Override
    public String summary() {
        return "show the target's system properties";
    }

    @Override
    public String usage() {
        return "sysprop [key]\n"
                + "  sysprop                 every property, sorted\n"
                + "  sysprop java.version    one property";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws CommandException {
        List<String> words = Flags.parse(name(), args).positional();
        if (words.size() > 1) {
            throw new CommandException("sysprop: setting a property is not supported (culprit only reads the target)");
        }
        Properties props = System.getProperties();
        if (words.size() == 1) {
            String key = words.get(0);
            String value = props.getProperty(key);
            if (value == null) {
                throw new CommandException("sysprop: no property '" + key + "'");
            }
            HelpCommand.emit(ctx, key + "=" + value, Map.of(key, value));
            return;
        }
        TreeMap<String, String> sorted = new TreeMap<>();
        for (String k : props.stringPropertyNames()) {
            sorted.put(k, props.getProperty(k));
        }
        StringBuilder sb = new StringBuilder();
        sorted.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        HelpCommand.emit(ctx, sb.toString().stripTrailing(), sorted);
    }
}
