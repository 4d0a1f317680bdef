package io.culprit.cli;

import io.culprit.cli.agent.LocalJvms;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code culprit ps}: the local JVMs this user can see, like {@code jps -l} plus JDK version and
 * uptime. Reads only hsperfdata and /proc: it never attaches.
 */
@Command(name = "ps", mixinStandardHelpOptions = true, description = "Lists local JVMs: pid, main class or jar, JDK version, uptime.",
        footer = {"", "Example:", "  culprit ps"})
public final class PsCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        List<LocalJvms.Jvm> jvms = LocalJvms.list();
        System.out.printf("%-8s %-8s %-12s %-10s %s%n", "PID", "USER", "JDK", "UPTIME", "MAIN");
        for (LocalJvms.Jvm j : jvms) {
            System.out.printf("%-8d %-8s %-12s %-10s %s%n", j.pid, j.owner, j.javaVersion, Durations.format(j.uptimeMs), j.main);
        }
        if (jvms.isEmpty()) System.out.println("(no other JVMs visible to user " + System.getProperty("user.name") + ")");
        return 0;
    }
}
