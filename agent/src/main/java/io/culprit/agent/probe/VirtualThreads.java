package io.culprit.agent.probe;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Whether a thread is virtual (JDK 21+), for an agent compiled for JDK 11. A virtual thread runs
 * one task and ends: a servlet container on virtual threads (Spring Boot's
 * {@code spring.threads.virtual.enabled}) starts one per request, so per-thread state made at a
 * thread's first event is per-request state, and must be small and need no cleanup.
 */
final class VirtualThreads {
    /** {@code Thread.isVirtual()}, or null before JDK 21. */
    private static final MethodHandle IS_VIRTUAL = find();

    private VirtualThreads() {
    }

    static boolean is(Thread t) {
        if (IS_VIRTUAL == null) return false;
        try {
            return (boolean) IS_VIRTUAL.invokeExact(t);
        } catch (Throwable e) {
            return false;
        }
    }

    private static MethodHandle find() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
