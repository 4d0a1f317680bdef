package io.culprit.agent.probe;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * A class whose class file is Java 6's (version 50, too old to hold an invokedynamic), as
 * old libraries still ship: {@code Old6.twice(Object)} returns the string twice.
 * javac 17 cannot target Java 6, so it is written with ASM and defined in a loader of its own
 * that also serves its bytes as a resource, where the weaver reads a class file.
 */
final class Java6Class {

    static final String NAME = "io.culprit.agent.probe.fixture.Old6";

    private Java6Class() { }

    static Class<?> define() {
        byte[] bytes = bytes();
        String resource = NAME.replace('.', '/') + ".class";
        ClassLoader loader = new ClassLoader(Java6Class.class.getClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (!name.equals(NAME)) throw new ClassNotFoundException(name);
                return defineClass(name, bytes, 0, bytes.length);
            }

            @Override
            public InputStream getResourceAsStream(String name) {
                return name.equals(resource) ? new ByteArrayInputStream(bytes) : super.getResourceAsStream(name);
            }
        };
        try {
            return Class.forName(NAME, true, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] bytes() {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        String internal = NAME.replace('.', '/');
        cw.visit(Opcodes.V1_6, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, internal, null, "java/lang/Object", null);
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor twice = cw.visitMethod(Opcodes.ACC_PUBLIC, "twice", "(Ljava/lang/Object;)Ljava/lang/String;", null, null);
        twice.visitCode();
        twice.visitVarInsn(Opcodes.ALOAD, 1);
        twice.visitTypeInsn(Opcodes.CHECKCAST, "java/lang/String");
        twice.visitInsn(Opcodes.DUP);
        twice.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/String", "concat", "(Ljava/lang/String;)Ljava/lang/String;", false);
        twice.visitInsn(Opcodes.ARETURN);
        twice.visitMaxs(0, 0);
        twice.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }
}
