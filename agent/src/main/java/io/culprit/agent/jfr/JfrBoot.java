package io.culprit.agent.jfr;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import jdk.jfr.FlightRecorder;

/**
 * Starts JFR in the target when culprit is the first to use it, outside the agent's stack
 * ({@link OutsideAgent}): JFR's first use creates threads that live until the JVM exits ("JFR
 * Periodic Tasks", and its shutdown hook, registered but not started), and started from a culprit
 * command they held the agent's class loader after detach, through their context class loader and
 * their access control context.
 */
public final class JfrBoot {
    private JfrBoot() {
    }

    /** Call before culprit uses JFR in a command: starts JFR if it never ran, lifts the idle guard if it runs. */
    public static void ensure() {
        if (!FlightRecorder.isAvailable()) return;
        if (FlightRecorder.isInitialized()) {
            JfrIdleGuard.lift();
            return;
        }
        OutsideAgent.call("JFR did not start", () -> MethodHandles.publicLookup()
                .findStatic(FlightRecorder.class, "getFlightRecorder", MethodType.methodType(FlightRecorder.class)));
    }
}
