package io.culprit.agent.command.basic;

import io.culprit.agent.Lifecycle;
import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.jfr.JfrIdleGuard;
import java.util.List;
import java.util.Map;

/** {@code stop}: answers, then detaches (see {@link Lifecycle#stop()}). */
public final class StopCommand implements Command {
    static final String GUARD_NOTE = "JFR has run in this JDK (before 21): an idle one-event recording stays, so that JFR's "
            + "periodic thread wakes once a second, not 100 times (JDK-8302821; jcmd <pid> JFR.check names it)";

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
        boolean guard = jfrIdleGuard();
        HelpCommand.emit(ctx, "culprit agent detaching from pid " + pid + (guard ? "\n" + GUARD_NOTE : ""),
                Map.of("detached", true, "pid", pid, "jfrIdleGuard", guard));
        // Last: the detach lets this command finish and send its end before the port closes.
        Lifecycle.stop();
    }

    /** Whether the detach will likely leave JfrIdleGuard's recording (decided at detach, once culprit's recordings are closed). */
    private static boolean jfrIdleGuard() {
        try {
            return JfrIdleGuard.mayBeNeeded();
        } catch (LinkageError e) { // a runtime without jdk.jfr
            return false;
        }
    }
}
