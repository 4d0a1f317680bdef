package io.culprit.agent.instrument.internal;

import io.culprit.bootstrap.Bridge;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Inlined only for listeners that read arguments or the returned value (watch, stack with a
 * condition): the argument array and boxing are the price of asking for them.
 */
public final class ArgsAdvice {

    private ArgsAdvice() { }

    @Advice.OnMethodEnter
    static long enter(@MethodId int id, @Advice.This(optional = true) Object self,
                      @Advice.AllArguments Object[] args) {
        return Bridge.enterArgs(id, self, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@MethodId int id, @Advice.Enter long start, @Advice.This(optional = true) Object self,
                     @Advice.AllArguments Object[] args,
                     @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                     @Advice.Thrown Throwable thrown) {
        Bridge.exitArgs(id, start, self, args, returned, thrown);
    }
}
