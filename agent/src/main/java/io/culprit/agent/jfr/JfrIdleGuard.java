package io.culprit.agent.jfr;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Keeps JFR's periodic thread asleep after culprit's recordings end, on JDKs before 21.
 *
 * <p>Once JFR has run in a JVM, its "JFR Periodic Tasks" thread lives until the JVM exits. On
 * JDK 11 to 20, when no recording runs, {@code RequestEngine.doPeriodic()} finds no enabled
 * periodic event and returns 0, and {@code PlatformRecorder.takeNap} rounds that up to 10 ms: the
 * thread wakes 100 times a second for the rest of the JVM's life (JDK-8302821, fixed in 21).
 * Measured on the lab service, JDK 17.0.15: 4–6 ms of CPU a second after a JFR recording
 * stopped, whether culprit's or {@code jcmd JFR.start}/{@code JFR.stop}'s. One periodic event
 * enabled at a long period bounds the wait by the JDK's 1 s wait interval instead: 0.12 ms a
 * second. So at detach, if JFR ran and nothing else records, culprit leaves this one
 * recording behind, named so that {@code jcmd <pid> JFR.check} says why (stopping it brings
 * the 100 wake-ups a second back).
 *
 * <p>The guard records to disk. On JDK 17 a disk recording started while only an in-memory one
 * runs gets a fraction of its window: after an in-memory guard, {@code jcmd JFR.start
 * duration=5s} on a JVM allocating steadily wrote 86 GCs, 34 execution samples and 1 CPU-load
 * event, against 347, 129 and 5 without it, and stamped its start events at the guard's start
 * (measured in a plain JVM, culprit not attached; the same with a disk guard: 262, 109 and 5).
 * On disk the guard costs about 100 bytes a second in JFR's repository (kept under {@code
 * maxsize} by JFR, deleted at exit) and, idle, 2 ms of CPU a second against 1 ms in memory and
 * 8 ms without a guard.
 */
public final class JfrIdleGuard {
    public static final String NAME = "culprit: keeps JFR's periodic thread idle (JDK-8302821)";
    private static final int FIXED_IN = 21;

    private JfrIdleGuard() {
    }

    /**
     * Ends the guard left by an earlier attach, before culprit records again: culprit's own
     * recordings bound the thread's waits while they run, and on JDK 17 a recording stopped while
     * another runs gets the leak profiler's samples without their stacks (JfrCommand's stop).
     */
    static void lift() {
        FlightRecorder.getFlightRecorder().getRecordings().stream()
                .filter(r -> NAME.equals(r.getName()) && r.getState() == RecordingState.RUNNING)
                .forEach(Recording::close);
    }

    /** Whether a detach now may leave the guard: a JDK with the bug, where JFR has run. */
    public static boolean mayBeNeeded() {
        return Runtime.version().feature() < FIXED_IN && FlightRecorder.isAvailable() && FlightRecorder.isInitialized();
    }

    /**
     * Starts the guard when this JDK has the bug, JFR has been started in it, and no recording is
     * running (a running one keeps the thread's waits bounded by itself).
     *
     * @return what was done, for the agent's log
     */
    public static String afterDetach() {
        if (!mayBeNeeded()) return "not needed: JDK " + Runtime.version().feature() + (FlightRecorder.isInitialized() ? "" : ", JFR never ran here");
        boolean running = FlightRecorder.getFlightRecorder().getRecordings().stream()
                .anyMatch(r -> r.getState() == RecordingState.RUNNING);
        if (running) return "not needed: a recording is running";
        // Created outside the agent: a recording keeps its creator's access control context.
        Recording guard = (Recording) OutsideAgent.call("the idle guard's recording", () -> MethodHandles.publicLookup()
                .findConstructor(Recording.class, MethodType.methodType(void.class, Map.class))
                .bindTo(Map.of("jdk.JVMInformation#enabled", "true", "jdk.JVMInformation#period", "1 h")));
        guard.setName(NAME);
        guard.setToDisk(true);  // see the class comment: an in-memory guard truncates the application's later recordings
        // Its one event is the cheapest periodic event there is: a few strings, once an hour.
        guard.setMaxSize(1024 * 1024);
        guard.start();
        return "started the idle guard recording " + guard.getId();
    }
}
