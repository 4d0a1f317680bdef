package io.culprit.agent.command;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses a command's words into flags and positional arguments, Arthas style
 * ({@code -n 3 -i 500 --state BLOCKED}, also {@code --state=BLOCKED}). Every mistake becomes a
 * {@link CommandException} that names the command and the offending word.
 */
public final class Flags {
    private final String command;
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> switches = new HashSet<>();
    private final List<String> positional = new ArrayList<>();

    private Flags(String command) {
        this.command = command;
    }

    /**
     * @param withValue flags followed by a value, e.g. {@code "-n", "--state"}
     * @param booleans  flags standing alone, e.g. {@code "-b"}
     */
    public static Flags parse(String command, List<String> args, List<String> withValue, List<String> booleans)
            throws CommandException {
        Flags f = new Flags(command);
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("-") || a.equals("-") || isNumber(a)) {
                f.positional.add(a);
                continue;
            }
            String name = a;
            String inline = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                inline = a.substring(eq + 1);
            }
            if (withValue.contains(name)) {
                if (inline == null) {
                    if (i + 1 >= args.size()) {
                        throw new CommandException(command + ": " + name + " needs a value");
                    }
                    inline = args.get(++i);
                }
                f.values.put(name, inline);
            } else if (booleans.contains(name) && inline == null) {
                f.switches.add(name);
            } else {
                throw new CommandException(command + ": unknown option " + a + " (see 'help " + command + "')");
            }
        }
        return f;
    }

    public static Flags parse(String command, List<String> args, String... withValue) throws CommandException {
        return parse(command, args, Arrays.asList(withValue), List.of());
    }

    private static boolean isNumber(String s) {
        return s.matches("-\\d+(\\.\\d+)?");
    }

    public boolean has(String flag) {
        return switches.contains(flag) || values.containsKey(flag);
    }

    public String value(String flag) {
        return values.get(flag);
    }

    /** An integer flag within [min, max], or {@code def} when absent. */
    public long longValue(String flag, long def, long min, long max) throws CommandException {
        String v = values.get(flag);
        if (v == null) {
            return def;
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new CommandException(command + ": " + flag + " expects a number, got '" + v + "'");
        }
        if (n < min || n > max) {
            throw new CommandException(command + ": " + flag + " must be between " + min + " and " + max + ", got " + n);
        }
        return n;
    }

    public List<String> positional() {
        return positional;
    }

    /** Rejects more than {@code max} positional arguments. */
    public Flags atMostPositional(int max) throws CommandException {
        if (positional.size() > max) {
            throw new CommandException(command + ": unexpected argument '" + positional.get(max) + "' (see 'help " + command + "')");
        }
        return this;
    }
}
