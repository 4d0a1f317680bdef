package io.culprit.bootstrap;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The one class woven code calls. A static, volatile {@link Spy} that is a no-op until the agent
 * installs its dispatcher and again after {@link #reset()}, so bytecode left behind by a crashed
 * or detached agent is harmless (the design Arthas uses). Every entry point swallows its own
 * throwables: instrumentation must never change what the application sees.
 */
public final class Bridge {

    private static final Spy NO_OP = new NoOpSpy();
    private static volatile Spy spy = NO_OP;

    private Bridge() { }

    public static void install(Spy real) {
        if (real == null) {
            throw new IllegalArgumentException("spy is null");
        }
        spy = real;
    }

    public static void reset() {
        spy = NO_OP;
    }

    public static boolean installed() {
        return spy != NO_OP;
    }

    public static long enter(int id) {
        try {
            return spy.enter(id);
        } catch (Throwable ignored) {
            return 0L;
        }
    }

    public static void exit(int id, long start, Throwable thrown) {
        try {
            spy.exit(id, start, thrown);
        } catch (Throwable ignored) {
            // never into the application
        }
    }

    public static long enterArgs(int id, Object self, Object[] args) {
        try {
            return spy.enterArgs(id, self, args);
        } catch (Throwable ignored) {
            return 0L;
        }
    }

    public static void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
        try {
            spy.exitArgs(id, start, self, args, returned, thrown);
        } catch (Throwable ignored) {
            // never into the application
        }
    }

    public static long probeEnter(int id, Object self, Object arg0) {
        try {
            return spy.probeEnter(id, self, arg0);
        } catch (Throwable ignored) {
            return 0L;
        }
    }

    public static void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
        try {
            spy.probeExit(id, start, self, arg0, arg1, returned, thrown);
        } catch (Throwable ignored) {
            // never into the application
        }
    }

    public static void beforeCall(int site) {
        try {
            spy.beforeCall(site);
        } catch (Throwable ignored) {
            // never into the application
        }
    }

    public static void afterCall(int site) {
        try {
            spy.afterCall(site);
        } catch (Throwable ignored) {
            // never into the application
        }
    }

    /**
     * The bootstrap method of the framework probes' {@code invokedynamic} calls: the installed
     * spy gives each call site a target the JIT can inline whole (a constant listener, no table
     * lookup, no megamorphic call), and points it at a no-op when its command ends. A site that
     * links while no agent is installed (leftover code between a reset and its retransformation)
     * is a no-op for good. Never throws: a failing bootstrap would throw into the application.
     */
    public static CallSite link(MethodHandles.Lookup caller, String name, MethodType type, int id) {
        try {
            CallSite site = spy.link(name, type, id);
            if (site != null) {
                return site;
            }
        } catch (Throwable ignored) {
            // a no-op below
        }
        return new ConstantCallSite(MethodHandles.empty(type));
    }
}
