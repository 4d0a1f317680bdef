package io.culprit.agent.channel;

import io.culprit.agent.command.Command;
import java.util.Collection;
import java.util.Collections;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** The commands listed in META-INF/services/io.culprit.agent.command.Command, by name. */
public final class CommandRegistry {
    private final TreeMap<String, Command> byName = new TreeMap<>();

    private CommandRegistry() {
    }

    /** Loads from the given loader: the agent's isolated loader, never the application's. */
    public static CommandRegistry load(ClassLoader loader) {
        CommandRegistry r = new CommandRegistry();
        ServiceLoader<Command> services = ServiceLoader.load(Command.class, loader);
        for (java.util.Iterator<Command> it = services.iterator(); it.hasNext(); ) {
            try {
                Command c = it.next();
                r.byName.putIfAbsent(c.name(), c);
            } catch (ServiceConfigurationError e) {
                // One broken command (e.g. a class needing a newer JDK) must not take the others down.
            }
        }
        return r;
    }

    /** A fixed set, for tests and embedders. */
    public static CommandRegistry of(Command... commands) {
        CommandRegistry r = new CommandRegistry();
        for (Command c : commands) {
            r.byName.putIfAbsent(c.name(), c);
        }
        return r;
    }

    /** The command with this name, or null. */
    public Command get(String name) {
        return byName.get(name);
    }

    /** All commands, sorted by name. */
    public Collection<Command> all() {
        return Collections.unmodifiableCollection(byName.values());
    }
}
