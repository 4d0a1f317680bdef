package io.culprit.agent.instrument.internal;

import io.culprit.bootstrap.Bridge;
import net.bytebuddy.asm.Advice;

/**
 * {@link LeanAdvice} for constructors: Byte Buddy cannot wrap a constructor in an exception
 * handler, so only normal exits are reported; a constructor that throws is not timed.
 */
public final class ConstructorAdvice {

    private ConstructorAdvice() { }

    @Advice.OnMethodEnter
    static long enter(@MethodId int id) {
        return Bridge.enter(id);
    }

    @Advice.OnMethodExit
    static void exit(@MethodId int id, @Advice.Enter long start) {
        Bridge.exit(id, start, null);
    }
}
