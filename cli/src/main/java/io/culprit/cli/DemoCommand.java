package io.culprit.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The newcomer's first command. Until diagnose lands it says what it will do; it must never
 * pretend to have diagnosed anything.
 */
@Command(name = "demo", description = "Starts a lab scenario on the embedded database, diagnoses it under load, prints the verdict.")
public final class DemoCommand implements Callable<Integer> {

    @Parameters(index = "0", defaultValue = "gc-pool-starvation", description = "lab scenario (default: ${DEFAULT-VALUE})")
    String scenario;

    @Override
    public Integer call() {
        System.out.println("culprit demo " + scenario + " will:");
        System.out.println("  1. start the lab service with the '" + scenario + "' fault on the embedded database");
        System.out.println("  2. attach, drive bounded load on 127.0.0.1 and collect evidence into a case file");
        System.out.println("  3. print the root cause, the ranked hypotheses and the report's path");
        System.out.println("The diagnose pipeline has not landed yet; nothing was started.");
        return 0;
    }
}
