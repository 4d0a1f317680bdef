package io.culprit.agent.instrument;

import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.internal.ArgsAdvice;
import io.culprit.agent.instrument.internal.CallSiteVisitor;
import io.culprit.agent.instrument.internal.ConstructorAdvice;
import io.culprit.agent.instrument.internal.ConstructorProbeAdvice;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.agent.instrument.internal.IdMapping;
import io.culprit.agent.instrument.internal.LeanAdvice;
import io.culprit.agent.instrument.internal.MethodId;
import io.culprit.agent.instrument.internal.ParameterNames;
import io.culprit.agent.instrument.internal.ProbeMapping;
import io.culprit.agent.instrument.internal.ProbeWeave;
import io.culprit.bootstrap.Bridge;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;

/**
 * Installs and removes the weaving of every instrumenting command. Each {@link Plan} gets its own
 * {@link ResettableClassFileTransformer} (retransformation, no class format changes), so one
 * command's reset restores exactly what it wove and {@link #resetAll()} returns every class to
 * its original bytecode. The Bridge points at the dispatcher while anything is installed.
 */
public final class Instrumenter {

    private static final List<Installation> LIVE = new CopyOnWriteArrayList<>();
    private static volatile boolean unsafe;

    private Instrumenter() { }

    /** Set from the agent argument {@code unsafe}: lets expressions call methods and constructors. */
    public static void setUnsafe(boolean allowed) {
        unsafe = allowed;
    }

    public static boolean unsafe() {
        return unsafe;
    }

    public static int liveCount() {
        return LIVE.size();
    }

    public static synchronized Installation install(Instrumentation inst, Plan plan, List<Integer> ids)
            throws CommandException {
        List<String> errors = new ArrayList<>();
        List<String> woven = new ArrayList<>();
        // Before the weave: afterwards those frames are the obsolete ones. Not for the probes, which
        // print no Affect line and weave no class a thread loops in (AppExecutors.WORKER_LOCK).
        String loops = plan.probes ? "" : LoopingThreads.note(plan.classes());
        // The dispatcher goes in first: a probe's invokedynamic links on its first call, which may
        // come before installOn returns, and a site linked with no dispatcher stays a no-op.
        Bridge.install(Dispatcher.INSTANCE);
        ParameterNames.register(inst);  // ahead of the weave's transformer, so it sees the names
        ResettableClassFileTransformer transformer;
        try {
            transformer = weave(inst, plan, woven, errors);
        } catch (RuntimeException | Error e) {
            if (LIVE.isEmpty()) {
                Bridge.reset();
                ParameterNames.unregister(inst);
            }
            throw e;
        }
        Installation installation = new Installation(inst, transformer, ids, woven.size(), plan.classes());
        installation.looping(loops);
        installation.failures(errors);
        LIVE.add(installation);
        if (woven.isEmpty()) {
            installation.close();
            throw new CommandException("could not weave any class" + (errors.isEmpty() ? "" : ": " + errors.get(0)));
        }
        return installation;
    }

    private static ResettableClassFileTransformer weave(Instrumentation inst, Plan plan, List<String> woven, List<String> errors) {
        return new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(new AgentBuilder.RedefinitionStrategy.DiscoveryStrategy.Explicit(plan.classes()))
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with(new AgentBuilder.Listener.Adapter() {
                    @Override
                    public void onTransformation(net.bytebuddy.description.type.TypeDescription type, ClassLoader cl,
                                                 JavaModule module, boolean loaded, DynamicType dynamicType) {
                        woven.add(type.getName());
                    }

                    @Override
                    public void onError(String name, ClassLoader cl, JavaModule module, boolean loaded, Throwable t) {
                        errors.add(name + ": " + t);
                    }
                })
                .ignore(ElementMatchers.none())
                .type((type, loader, module, redefined, pd) -> redefined != null && plan.classes().contains(redefined))
                .transform((builder, type, loader, module, pd) -> weave(builder, plan, classOf(plan, type.getName(), loader)))
                .installOn(inst);
    }

    private static Class<?> classOf(Plan plan, String name, ClassLoader loader) {
        for (Class<?> c : plan.classes()) {
            if (c.getName().equals(name) && c.getClassLoader() == loader) {
                return c;
            }
        }
        return null;
    }

    private static DynamicType.Builder<?> weave(DynamicType.Builder<?> builder, Plan plan, Class<?> type) {
        if (type == null) {
            return builder;
        }
        Map<String, Integer> ids = plan.advised.get(type);
        if (ids != null) {
            Advice.WithCustomMapping mapping = Advice.withCustomMapping().bind(MethodId.class, new IdMapping(ids));
            if (plan.probes) {
                builder = weaveProbes(builder, mapping, ids, plan.reads.getOrDefault(type, Map.of()));
            } else {
                builder = builder.visit(mapping.to(plan.withArgs ? ArgsAdvice.class : LeanAdvice.class)
                        .on(keyIn(ids).and(ElementMatchers.isMethod())));
            }
            // A constructor's exit advice cannot catch what the constructor throws (the JVM forbids
            // a handler around the super() call), so constructors get normal-exit timing only; a
            // probe's constructor that reads its object or arguments gets one exit call with them.
            Map<String, Integer> reading = plan.probes ? readingConstructors(plan.reads.getOrDefault(type, Map.of())) : Map.of();
            builder = builder.visit(mapping.to(ConstructorAdvice.class)
                    .on(keyIn(ids).and(ElementMatchers.isConstructor()).and(ElementMatchers.not(keyIn(reading)))));
            if (!reading.isEmpty()) {
                builder = builder.visit(mapping.bind(ProbeMapping.factory(reading)).to(ConstructorProbeAdvice.class)
                        .on(keyIn(reading).and(ElementMatchers.isConstructor())));
            }
        }
        Map<String, MethodTarget> calls = plan.callSites.get(type);
        if (calls != null) {
            builder = builder.visit(new AsmVisitorWrapper.ForDeclaredMethods().invokable(keyIn(calls),
                    (t, method, mv, ctx, pool, wf, rf) ->
                            new CallSiteVisitor(mv, calls.get(method.getInternalName() + method.getDescriptor()), plan.registrar)));
        }
        return builder;
    }

    /**
     * Each probe method gets the parts of the probe advice its hook uses: entry and exit, entry
     * only, or exit only; the values it reads are bound per method by {@link ProbeMapping}, and
     * {@link ProbeWeave} picks how the calls reach the hook.
     */
    private static DynamicType.Builder<?> weaveProbes(DynamicType.Builder<?> builder, Advice.WithCustomMapping mapping,
                                                      Map<String, Integer> ids, Map<String, Integer> reads) {
        Advice.WithCustomMapping probe = mapping.bind(ProbeMapping.factory(reads));
        Map<String, Integer> both = new HashMap<>(), enterOnly = new HashMap<>(), exitOnly = new HashMap<>();
        reads.forEach((key, r) -> {
            boolean enter = (r & Plan.ENTER) != 0, exit = (r & Plan.EXIT) != 0;
            (enter && exit ? both : enter ? enterOnly : exitOnly).put(key, r);
        });
        ElementMatcher.Junction<MethodDescription> methods = ElementMatchers.isMethod();
        if (!both.isEmpty()) {
            builder = builder.visit(ProbeWeave.advice(probe, ids, keyIn(both).and(methods), true, true));
        }
        if (!enterOnly.isEmpty()) {
            builder = builder.visit(ProbeWeave.advice(probe, ids, keyIn(enterOnly).and(methods), true, false));
        }
        if (!exitOnly.isEmpty()) {
            builder = builder.visit(ProbeWeave.advice(probe, ids, keyIn(exitOnly).and(methods), false, true));
        }
        return builder;
    }

    /** The probe methods whose hook reads the receiver or an argument: for constructors, {@link ConstructorProbeAdvice}'s. */
    private static Map<String, Integer> readingConstructors(Map<String, Integer> reads) {
        Map<String, Integer> out = new HashMap<>();
        reads.forEach((key, r) -> {
            if (key.startsWith("<init>") && (r & (Plan.SELF | Plan.ARG0 | Plan.ARG1)) != 0) out.put(key, r);
        });
        return out;
    }

    private static ElementMatcher.Junction<MethodDescription> keyIn(Map<String, ?> keys) {
        return new ElementMatcher.Junction.AbstractBase<MethodDescription>() {
            @Override
            public boolean matches(MethodDescription m) {
                return keys.containsKey(m.getInternalName() + m.getDescriptor());
            }
        };
    }

    /**
     * Removes every command's weaving and points the Bridge back at its no-op; the agent's
     * {@code stop} and the {@code reset} command call this. Returns the number of distinct
     * classes restored to their original bytecode. Safe to call when nothing is installed.
     */
    public static synchronized int resetAll() {
        java.util.Set<Class<?>> classes = new java.util.HashSet<>();
        for (Installation i : LIVE) {
            classes.addAll(i.classes);
            i.close();
        }
        Bridge.reset();
        return classes.size();
    }

    static synchronized void removed(Installation installation) {
        LIVE.remove(installation);
        if (LIVE.isEmpty()) {
            Bridge.reset();
            // After the reset's retransformation, which it took part in: nothing of ours stays registered.
            ParameterNames.unregister(installation.inst);
        }
    }
}
