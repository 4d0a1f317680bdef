package io.culprit.agent.instrument.internal;

import io.culprit.bootstrap.Bridge;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into methods whose listener needs only timing (trace, monitor): one static call each
 * way, an int constant and a long, no allocation. The Bridge swallows its own throwables.
 */
public final class LeanAdvice {

    private LeanAdvice() { }

    @Advice.OnMethodEnter
    static long enter(@MethodId int id) {
        return Bridge.enter(id);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@MethodId int id, @Advice.Enter long start, @Advice.Thrown Throwable thrown) {
        Bridge.exit(id, start, thrown);
    }
}
