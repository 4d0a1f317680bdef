package io.culprit.agent.instrument.internal;

import io.culprit.agent.instrument.Listener;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The targets of the probes' {@code invokedynamic} call sites ({@link ProbeAdvice.Indy}): the
 * listener's {@code probeEnter}/{@code probeExit} bound to the listener, so the receiver is a
 * constant the JIT devirtualizes and inlines; a throwable from it is swallowed there, as the
 * Bridge does for its static calls. The site's type says which call it is: the advice's three
 * methods have three distinct signatures.
 */
final class ProbeTargets {

    static final String ENTER = "probeEnter", EXIT = "probeExit", EXIT_ONLY = "probeExitOnly";
    static final MethodType ENTER_TYPE = MethodType.methodType(long.class, int.class, Object.class, Object.class);
    static final MethodType EXIT_TYPE = MethodType.methodType(void.class, int.class, long.class, Object.class,
            Object.class, Object.class, Object.class, Throwable.class);
    /** {@link #EXIT_TYPE} without the start: a hook with no entry gets 0. */
    static final MethodType EXIT_ONLY_TYPE = EXIT_TYPE.dropParameterTypes(1, 2);

    private static final MethodHandle PROBE_ENTER, PROBE_EXIT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PROBE_ENTER = l.findVirtual(Listener.class, ENTER, ENTER_TYPE);
            PROBE_EXIT = l.findVirtual(Listener.class, EXIT, EXIT_TYPE);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ProbeTargets() { }

    /** Whether {@code name} and {@code type} are one of the probe advice's calls. */
    static boolean links(String name, MethodType type) {
        return ENTER.equals(name) && type.equals(ENTER_TYPE) || EXIT.equals(name) && type.equals(EXIT_TYPE)
                || EXIT_ONLY.equals(name) && type.equals(EXIT_ONLY_TYPE);
    }

    /** The target for a site of {@code type} calling {@code listener}; a no-op when it is null. */
    static MethodHandle of(MethodType type, Listener listener) {
        MethodHandle noOp = MethodHandles.empty(type);
        if (listener == null) {
            return noOp;
        }
        MethodHandle h = type.equals(ENTER_TYPE) ? PROBE_ENTER.bindTo(listener)
                : type.equals(EXIT_TYPE) ? PROBE_EXIT.bindTo(listener)
                : MethodHandles.insertArguments(PROBE_EXIT.bindTo(listener), 1, 0L);
        return MethodHandles.catchException(h, Throwable.class, MethodHandles.dropArguments(noOp, 0, Throwable.class));
    }
}
