package io.culprit.cli.lab;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Starts the lab service with one seeded fault, in the foreground, forwarding its output; Ctrl-C
 * stops it. Scenarios and their ground truth: docs/LAB.md.
 */
@Command(name = "lab", mixinStandardHelpOptions = true,
        description = "Starts a lab service with a seeded performance fault (Ctrl-C stops it).",
        footer = {"", "Examples:",
                "  culprit lab --list",
                "  culprit lab --scenario gc-pool-starvation",
                "  culprit lab --scenario converter-rebuild --fixed --port 9090",
                "  culprit lab --scenario row-lock --db postgres --redis"})
public final class LabCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", paramLabel = "NAME", description = "scenario to run (see --list)")
    String scenario;

    @Option(names = "--fixed", description = "run the scenario's fixed twin: only the cause removed")
    boolean fixed;

    @Option(names = "--db", defaultValue = "h2", paramLabel = "h2|postgres",
            description = "embedded H2 (default) or PostgreSQL at 127.0.0.1:5432, db test, user postgres")
    String db;

    @Option(names = "--port", defaultValue = "8080", description = "HTTP port on 127.0.0.1, 0 for any free one (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--redis", description = "keep the product cache in Redis at 127.0.0.1:6379 (falls back if absent)")
    boolean redis;

    @Option(names = "--list", description = "list the scenarios and exit")
    boolean list;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        LabJar jar;
        try {
            jar = LabJar.locate();
            if (list) {
                for (String name : jar.scenarioNames()) {
                    out.printf("%-20s %s%n", name, jar.scenario(name).title());
                }
                return 0;
            }
            if (scenario == null) {
                err.println("culprit lab: --scenario NAME is required (see culprit lab --list)");
                return 2;
            }
            LabProcess.Options options = new LabProcess.Options(scenario, fixed, db, port, redis);
            out.println("culprit lab: starting " + scenario + (fixed ? " (fixed)" : "") + (port == 0 ? " on a free port" : " on http://127.0.0.1:" + port)
                    + " with " + String.join(" ", jar.scenario(scenario).jvmArgs(fixed)));
            out.flush();
            LabProcess lab = LabProcess.start(jar, options, ProcessBuilder.Redirect.INHERIT);
            // Ctrl-C reaches the child too (same process group); the hook covers a plain SIGTERM to us.
            Thread hook = new Thread(lab::stop, "culprit-lab-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            GroundTruth truth = lab.scenario();
            out.println("culprit lab: " + truth.name() + " ready, pid " + lab.pid() + "; try: curl -s "
                    + (truth.method().equals("GET") ? "" : "-X " + truth.method() + " -H 'Content-Type: application/json' -d '" + truth.body() + "' ")
                    + "'" + lab.baseUrl() + truth.path() + "'; its file log " + lab.appLog() + " goes when it stops");
            out.flush();
            int code = lab.waitFor();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Already exiting: the hook is running or has run.
            }
            return code == 0 || code == 130 || code == 143 ? 0 : code;
        } catch (IllegalArgumentException e) {
            err.println("culprit lab: " + e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            err.println("culprit lab: " + e.getMessage());
            return 1;
        }
    }
}
