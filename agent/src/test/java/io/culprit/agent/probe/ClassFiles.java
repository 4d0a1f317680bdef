package io.culprit.agent.probe;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * A loaded class as the JVM would hand it to a retransforming agent now, and its code in symbolic
 * form. Reset is checked on the symbols, not the bytes: after a redefinition HotSpot may write a
 * constant again at a new index (Jetty's Server gets a second {@code Throwable} entry), the same
 * code with other numbers.
 */
final class ClassFiles {

    private ClassFiles() { }

    static byte[] current(Class<?> type) throws Exception {
        byte[][] seen = new byte[1][];
        ClassFileTransformer capture = new ClassFileTransformer() {
            @Override
            public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
                if (redefined == type) seen[0] = bytes.clone();
                return null;
            }
        };
        ProbeContext.INST.addTransformer(capture, true);
        try {
            ProbeContext.INST.retransformClasses(type);
        } finally {
            ProbeContext.INST.removeTransformer(capture);
        }
        return seen[0];
    }

    /** Every field and method, each method with its instructions, constants resolved and labels numbered in order. */
    static List<String> code(Class<?> type) throws Exception {
        List<String> out = new ArrayList<>();
        new ClassReader(current(type)).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String desc, String signature, Object value) {
                out.add("field " + access + " " + name + " " + desc + " " + value);
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                out.add("method " + access + " " + name + desc);
                Map<Label, Integer> labels = new IdentityHashMap<>();
                return new MethodVisitor(Opcodes.ASM9) {
                    private String l(Label label) {
                        return "L" + labels.computeIfAbsent(label, k -> labels.size());
                    }

                    private void add(Object... parts) {
                        out.add("  " + Arrays.deepToString(parts));
                    }

                    @Override public void visitInsn(int op) { add(op); }
                    @Override public void visitIntInsn(int op, int operand) { add(op, operand); }
                    @Override public void visitVarInsn(int op, int var) { add(op, var); }
                    @Override public void visitTypeInsn(int op, String t) { add(op, t); }
                    @Override public void visitFieldInsn(int op, String owner, String n, String d) { add(op, owner, n, d); }
                    @Override public void visitMethodInsn(int op, String owner, String n, String d, boolean itf) { add(op, owner, n, d, itf); }
                    @Override public void visitInvokeDynamicInsn(String n, String d, Handle bsm, Object... args) { add("indy", n, d, bsm, args); }
                    @Override public void visitJumpInsn(int op, Label label) { add(op, l(label)); }
                    @Override public void visitLabel(Label label) { add(l(label)); }
                    @Override public void visitLdcInsn(Object value) { add("ldc", value.getClass().getSimpleName(), value); }
                    @Override public void visitIincInsn(int var, int inc) { add("iinc", var, inc); }
                    @Override public void visitMultiANewArrayInsn(String d, int dims) { add("multianewarray", d, dims); }
                    @Override public void visitTryCatchBlock(Label s, Label e, Label h, String t) { add("try", l(s), l(e), l(h), t); }

                    @Override
                    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... ls) {
                        add("tableswitch", min, max, l(dflt), Arrays.stream(ls).map(this::l).toArray());
                    }

                    @Override
                    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] ls) {
                        add("lookupswitch", l(dflt), keys, Arrays.stream(ls).map(this::l).toArray());
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES | ClassReader.SKIP_DEBUG);
        return out;
    }
}
