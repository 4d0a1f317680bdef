package io.culprit.agent.instrument.internal;

import io.culprit.agent.instrument.Plan;
import io.culprit.bootstrap.Bridge;
import net.bytebuddy.asm.Advice;

/**
 * The framework probes' advice: one static call each way with a handful of plain references
 * ({@link ProbeMapping.Read}) instead of {@link ArgsAdvice}'s argument array and boxed return,
 * so woven code allocates nothing. Split in parts so a hook gets only the calls it uses: a hook
 * that only notes its receiver at entry gets no exit call, one that only reads the result gets no
 * entry call (and no clock).
 */
public final class ProbeAdvice {

    private ProbeAdvice() { }

    /** Entry, for hooks that work there (a start time, the receiver). */
    public static final class Enter {
        private Enter() { }

        @Advice.OnMethodEnter
        static long enter(@MethodId int id, @ProbeMapping.Read(Plan.SELF) Object self,
                          @ProbeMapping.Read(Plan.ARG0) Object arg0) {
            return Bridge.probeEnter(id, self, arg0);
        }
    }

    /** Exit after {@link Enter}: gets its start back. */
    public static final class Exit {
        private Exit() { }

        @Advice.OnMethodExit(onThrowable = Throwable.class, backupArguments = false)
        static void exit(@MethodId int id, @Advice.Enter long start, @ProbeMapping.Read(Plan.SELF) Object self,
                         @ProbeMapping.Read(Plan.ARG0) Object arg0, @ProbeMapping.Read(Plan.ARG1) Object arg1,
                         @ProbeMapping.Read(Plan.RETURNED) Object returned, @Advice.Thrown Throwable thrown) {
            Bridge.probeExit(id, start, self, arg0, arg1, returned, thrown);
        }
    }

    /** Exit of a hook with no entry: its start is 0. */
    public static final class ExitOnly {
        private ExitOnly() { }

        @Advice.OnMethodExit(onThrowable = Throwable.class, backupArguments = false)
        static void exit(@MethodId int id, @ProbeMapping.Read(Plan.SELF) Object self,
                         @ProbeMapping.Read(Plan.ARG0) Object arg0, @ProbeMapping.Read(Plan.ARG1) Object arg1,
                         @ProbeMapping.Read(Plan.RETURNED) Object returned, @Advice.Thrown Throwable thrown) {
            Bridge.probeExit(id, 0L, self, arg0, arg1, returned, thrown);
        }
    }

    /**
     * The same three calls as {@code invokedynamic} instead of the Bridge's static methods, for
     * class files that may hold one (Java 7+): not inlined (the call is the woven code's only
     * link to the agent) but linked by {@link io.culprit.bootstrap.Bridge#link} to a site whose
     * target is the hook itself, which the JIT inlines into the woven method. The names and
     * signatures are what {@link ProbeTargets} links; the bodies run only if nothing linked them.
     */
    public static final class Indy {
        private Indy() { }

        public static final class Enter {
            private Enter() { }

            @Advice.OnMethodEnter(inline = false)
            public static long probeEnter(@MethodId int id, @ProbeMapping.Read(Plan.SELF) Object self,
                                          @ProbeMapping.Read(Plan.ARG0) Object arg0) {
                return Bridge.probeEnter(id, self, arg0);
            }
        }

        public static final class Exit {
            private Exit() { }

            @Advice.OnMethodExit(onThrowable = Throwable.class, inline = false, backupArguments = false)
            public static void probeExit(@MethodId int id, @Advice.Enter long start, @ProbeMapping.Read(Plan.SELF) Object self,
                                         @ProbeMapping.Read(Plan.ARG0) Object arg0, @ProbeMapping.Read(Plan.ARG1) Object arg1,
                                         @ProbeMapping.Read(Plan.RETURNED) Object returned, @Advice.Thrown Throwable thrown) {
                Bridge.probeExit(id, start, self, arg0, arg1, returned, thrown);
            }
        }

        public static final class ExitOnly {
            private ExitOnly() { }

            @Advice.OnMethodExit(onThrowable = Throwable.class, inline = false, backupArguments = false)
            public static void probeExitOnly(@MethodId int id, @ProbeMapping.Read(Plan.SELF) Object self,
                                             @ProbeMapping.Read(Plan.ARG0) Object arg0, @ProbeMapping.Read(Plan.ARG1) Object arg1,
                                             @ProbeMapping.Read(Plan.RETURNED) Object returned, @Advice.Thrown Throwable thrown) {
                Bridge.probeExit(id, 0L, self, arg0, arg1, returned, thrown);
            }
        }
    }
}
