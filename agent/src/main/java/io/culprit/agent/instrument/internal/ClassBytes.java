package io.culprit.agent.instrument.internal;

import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * Reads a loaded class's original class file (from its loader's resources, not the JVM) with
 * ASM. Reflection would link parameter types and may load classes; reading bytes loads nothing.
 */
public final class ClassBytes {

    /** One declared method: access flags, name, descriptor, and the methods its body calls. */
    public static final class Method {
        public final int access;
        public final String name;
        public final String descriptor;
        public final List<String[]> calls = new ArrayList<>();  // {ownerInternalName, name, descriptor}

        Method(int access, String name, String descriptor) {
            this.access = access;
            this.name = name;
            this.descriptor = descriptor;
        }

        public String key() {
            return name + descriptor;
        }

        /** {@code name(long, String)}: the parameters' simple names, to tell overloads apart in a table. */
        public String signature() {
            StringBuilder out = new StringBuilder(name).append('(');
            Type[] params = Type.getArgumentTypes(descriptor);
            for (int i = 0; i < params.length; i++) {
                String c = params[i].getClassName();
                out.append(i == 0 ? "" : ", ").append(c.substring(c.lastIndexOf('.') + 1));
            }
            return out.append(')').toString();
        }

        public boolean concrete() {
            return (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0;
        }

        public boolean isConstructor() {
            return "<init>".equals(name);
        }
    }

    private ClassBytes() { }

    /** The declared methods of {@code type}, or an empty list when its class file is not readable. */
    public static List<Method> methods(Class<?> type) {
        byte[] bytes;
        try {
            bytes = ClassFileLocator.ForClassLoader.read(type);
        } catch (RuntimeException e) {
            return List.of();
        }
        List<Method> out = new ArrayList<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                Method m = new Method(access, name, desc);
                out.add(m);
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int op, String owner, String n, String d, boolean itf) {
                        m.calls.add(new String[] {owner, n, d});
                    }

                    @Override
                    public void visitInvokeDynamicInsn(String n, String d, Handle bsm, Object... args) {
                        // A lambda's body is a synthetic method named by the metafactory's second
                        // argument: following it makes lambdas reachable by trace --depth.
                        for (Object a : args) {
                            if (a instanceof Handle) {
                                Handle h = (Handle) a;
                                m.calls.add(new String[] {h.getOwner(), h.getName(), h.getDesc()});
                            }
                        }
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES);
        return out;
    }
}
