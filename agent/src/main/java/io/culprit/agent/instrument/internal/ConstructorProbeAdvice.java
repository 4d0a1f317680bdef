package io.culprit.agent.instrument.internal;

import io.culprit.agent.instrument.Plan;
import io.culprit.bootstrap.Bridge;
import net.bytebuddy.asm.Advice;

/**
 * {@link ProbeAdvice.ExitOnly} for a constructor whose hook reads the new object or its
 * arguments (R2DBC's conversation, made where a query starts): the object exists only once the
 * constructor returns, so the hook gets one exit call, on normal exit only ({@link ConstructorAdvice}
 * says why), and no entry call.
 */
public final class ConstructorProbeAdvice {

    private ConstructorProbeAdvice() { }

    @Advice.OnMethodExit(backupArguments = false)
    static void exit(@MethodId int id, @ProbeMapping.Read(Plan.SELF) Object self,
                     @ProbeMapping.Read(Plan.ARG0) Object arg0, @ProbeMapping.Read(Plan.ARG1) Object arg1) {
        Bridge.probeExit(id, 0L, self, arg0, arg1, null, null);
    }
}
