package io.culprit.agent.instrument.internal;

import io.culprit.agent.command.CommandException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The words after a command name: positionals, boolean flags, and options that take a value. */
public final class Args {

    private final List<String> positional = new ArrayList<>();
    private final Set<String> flags = new HashSet<>();
    private final Map<String, String> values = new HashMap<>();

    private Args() { }

    public static Args parse(List<String> words, Set<String> flagNames, Set<String> valueNames) throws CommandException {
        Args a = new Args();
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (flagNames.contains(w)) {
                a.flags.add(w);
            } else if (valueNames.contains(w)) {
                if (i + 1 >= words.size()) {
                    throw new CommandException("option " + w + " needs a value");
                }
                a.values.put(w, words.get(++i));
            } else if (w.startsWith("-") && w.length() > 1 && !Character.isDigit(w.charAt(1))) {
                throw new CommandException("unknown option " + w);
            } else {
                a.positional.add(w);
            }
        }
        return a;
    }

    public List<String> positional() {
        return positional;
    }

    public boolean has(String flag) {
        return flags.contains(flag);
    }

    public long number(String option, long def, long min, long max) throws CommandException {
        String v = values.get(option);
        if (v == null) {
            return def;
        }
        try {
            long n = Long.parseLong(v.replace("_", ""));
            if (n < min || n > max) {
                throw new CommandException(option + " must be between " + min + " and " + max + ", got " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new CommandException(option + " needs a whole number, got '" + v + "'");
        }
    }
}
