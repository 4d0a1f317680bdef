package io.culprit.agent;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Consumer;

/**
 * The agent's life inside the target. Whatever changes the target (a transformer, the Bridge's
 * delegate, a JFR recording) registers a hook here that undoes it; {@link #stop()} detaches:
 * commands are cancelled, the hooks run (last registered first), agent threads end, the port
 * closes and the run file is deleted. Statics are safe here: each attach gets a fresh isolated
 * class loader, so this state lives exactly as long as one agent.
 */
public final class Lifecycle {
    private static final Deque<Runnable> HOOKS = new ConcurrentLinkedDeque<>();
    private static volatile Consumer<Thread> detacher;
    private static volatile boolean stopping;

    private Lifecycle() {
    }

    /** Registers an undo action run at detach, in reverse order of registration. */
    public static void addShutdownHook(Runnable hook) {
        HOOKS.push(hook);
    }

    /** True from the moment a detach begins. */
    public static boolean stopping() {
        return stopping;
    }

    /**
     * Detaches in the background (thread {@code culprit-detach}). Called from a command, that
     * command is allowed to finish and send its answer; every other command is cancelled.
     */
    public static void stop() {
        Consumer<Thread> d;
        synchronized (Lifecycle.class) {
            d = detacher;
            if (d == null || stopping) {
                return; // not started, or a detach is already under way
            }
            stopping = true;
        }
        Thread caller = Thread.currentThread();
        Thread t = new Thread(() -> d.accept(caller), "culprit-detach");
        t.setDaemon(true);
        t.start();
    }

    /** Called by the agent when it starts. */
    static void install(Consumer<Thread> agentDetacher) {
        stopping = false;
        detacher = agentDetacher;
    }

    /** Runs and forgets every hook; one failing hook does not keep the others from running. */
    static void runHooks(Consumer<Throwable> onError) {
        Runnable hook;
        while ((hook = HOOKS.poll()) != null) {
            try {
                hook.run();
            } catch (Throwable t) {
                onError.accept(t);
            }
        }
        detacher = null;
    }
}
