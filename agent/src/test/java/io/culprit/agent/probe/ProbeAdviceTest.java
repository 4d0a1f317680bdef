package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.culprit.agent.instrument.Instrumenter;
import io.culprit.agent.instrument.Listener;
import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.Plan;
import io.culprit.agent.instrument.TargetResolver;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.agent.probe.fixture.ProbedTarget;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The probe advice ({@code Plan.forProbes()}): each hook gets exactly the calls and values it
 * declared, and the woven bytecode allocates no array and boxes nothing (read back from the
 * retransformed class file, not inferred).
 */
class ProbeAdviceTest {

    private static final String TARGET = ProbedTarget.class.getName();
    /** First: puts the Bridge on the boot path before anything here loads the agent's Spy (see ProbeContext). */
    private static final java.lang.instrument.Instrumentation INST = ProbeContext.INST;

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
    }

    @Test
    void eachHookGetsOnlyWhatItReadsAndTheWovenCodeAllocatesNothing() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        Listener recorder = new Listener() {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                events.add("enter " + id + " " + (self != null) + " " + arg0);
                noteCaller();
                return 42L;
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                events.add("exit " + id + " " + start + " " + (self != null) + " " + arg0 + " " + arg1 + " " + returned + " "
                        + (thrown == null ? null : thrown.getClass().getSimpleName()));
            }
        };
        int join = Dispatcher.INSTANCE.register(recorder), note = Dispatcher.INSTANCE.register(recorder),
                count = Dispatcher.INSTANCE.register(recorder);
        Plan plan = Plan.forProbes();
        plan.advise(target("join"), join, Plan.ENTER | Plan.EXIT | Plan.SELF | Plan.ARG0 | Plan.RETURNED);
        plan.advise(target("note"), note, Plan.ENTER | Plan.SELF);
        plan.advise(target("count"), count, Plan.EXIT | Plan.ARG0);
        Instrumenter.install(INST, plan, new ArrayList<>(List.of(join, note, count)));

        ProbedTarget t = new ProbedTarget();
        assertThat(t.join("a", 7)).isEqualTo("a7");
        t.note("x");
        assertThat(t.count("abc")).isEqualTo(3);
        assertThatThrownBy(() -> t.join(null, 1)).isInstanceOf(NullPointerException.class);
        assertThat(events).containsExactly(
                "enter " + join + " true a",
                "exit " + join + " 42 true a null a7 null",
                "enter " + note + " true null",
                "exit " + count + " 0 false abc null null null",
                "enter " + join + " true null",
                "exit " + join + " 42 true null null null NullPointerException");

        Map<String, List<String>> woven = wovenInstructions();
        for (String method : List.of("join", "note", "count")) {
            assertThat(woven.get(method)).as(method).noneMatch(i -> i.startsWith("NEWARRAY") || i.startsWith("ANEWARRAY")
                    || i.endsWith(".valueOf"));
        }
        // A Java 7+ class file: one invokedynamic per call, linked by the Bridge to the hook itself.
        assertThat(woven.get("join")).contains("java/lang/String.concat",  // the method's own code was read too
                LINK + "probeEnter", LINK + "probeExit").noneMatch(i -> i.startsWith("io/culprit/bootstrap/Bridge.probe"));
        assertThat(woven.get("note")).contains(LINK + "probeEnter").doesNotContain(LINK + "probeExit", LINK + "probeExitOnly");
        assertThat(woven.get("count")).contains(LINK + "probeExitOnly").doesNotContain(LINK + "probeEnter");
        assertThat(viaBridge).as("the hook was called through the Bridge, not its linked call site").isEmpty();
    }

    private static final String LINK = "indy io/culprit/bootstrap/Bridge.link ";
    /** Frames of the Bridge or the dispatcher seen under a hook: none when the call site targets the hook. */
    private final List<String> viaBridge = new CopyOnWriteArrayList<>();

    private void noteCaller() {
        for (StackTraceElement f : new Throwable().getStackTrace()) {
            if (f.getClassName().equals("io.culprit.bootstrap.Bridge") || f.getClassName().endsWith(".Dispatcher")) {
                viaBridge.add(f.toString());
            }
        }
    }

    /** Renewed probes point the woven ids at new hooks: the linked call sites follow. */
    @Test
    void aNewListenerForAWovenIdGetsTheCallsOfItsLinkedSites() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        int id = Dispatcher.INSTANCE.register(named("first", events));
        Plan plan = Plan.forProbes();
        plan.advise(target("count"), id, Plan.EXIT | Plan.ARG0);
        Instrumenter.install(INST, plan, new ArrayList<>(List.of(id)));
        ProbedTarget t = new ProbedTarget();
        t.count("a");
        Dispatcher.INSTANCE.set(id, named("second", events));
        t.count("bb");
        Dispatcher.INSTANCE.unregisterAll(List.of(id));
        t.count("ccc");  // still woven: its site is a no-op now
        assertThat(events).containsExactly("first a", "second bb");
    }

    /** A class file too old for invokedynamic (Java 6) is woven with the Bridge's static calls. */
    @Test
    void aJava6ClassFileGetsTheBridgesStaticCalls() throws Exception {
        Class<?> old = Java6Class.define();
        List<String> events = new CopyOnWriteArrayList<>();
        int id = Dispatcher.INSTANCE.register(named("old", events));
        Plan plan = Plan.forProbes();
        plan.advise(TargetResolver.resolve(INST, old.getName(), "twice", false, false).get(0), id, Plan.ENTER | Plan.EXIT | Plan.ARG0);
        Instrumenter.install(INST, plan, new ArrayList<>(List.of(id)));
        Object o = old.getConstructor().newInstance();
        assertThat(old.getMethod("twice", Object.class).invoke(o, "x")).isEqualTo("xx");
        assertThat(events).containsExactly("old x");
        assertThat(wovenInstructions(old).get("twice")).contains("io/culprit/bootstrap/Bridge.probeEnter",
                "io/culprit/bootstrap/Bridge.probeExit").noneMatch(i -> i.startsWith("indy"));
    }

    private static Listener named(String name, List<String> events) {
        return new Listener() {
            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                events.add(name + " " + arg0);
            }
        };
    }

    private static MethodTarget target(String method) throws Exception {
        return TargetResolver.resolve(INST, TARGET, method, false, false).get(0);
    }

    /**
     * The class file as woven: a transformer added after the weaving's sees the woven bytes when
     * the class is retransformed again (the JVM chains transformers in the order they were added).
     */
    private static Map<String, List<String>> wovenInstructions() throws Exception {
        return wovenInstructions(ProbedTarget.class);
    }

    private static Map<String, List<String>> wovenInstructions(Class<?> woven) throws Exception {
        byte[][] seen = new byte[1][];
        ClassFileTransformer reader = new ClassFileTransformer() {
            @Override
            public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
                if (redefined == woven) seen[0] = bytes.clone();
                return null;
            }
        };
        INST.addTransformer(reader, true);
        try {
            INST.retransformClasses(woven);
        } finally {
            INST.removeTransformer(reader);
        }
        Map<String, List<String>> byMethod = new ConcurrentHashMap<>();
        new ClassReader(seen[0]).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                List<String> ins = byMethod.computeIfAbsent(name, k -> new ArrayList<>());
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitIntInsn(int opcode, int operand) {
                        if (opcode == Opcodes.NEWARRAY) ins.add("NEWARRAY");
                    }

                    @Override
                    public void visitTypeInsn(int opcode, String type) {
                        if (opcode == Opcodes.ANEWARRAY) ins.add("ANEWARRAY " + type);
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                        ins.add(owner + "." + name);
                    }

                    @Override
                    public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
                        ins.add("indy " + bsm.getOwner() + "." + bsm.getName() + " " + name);
                    }
                };
            }
        }, 0);
        return byMethod;
    }
}
