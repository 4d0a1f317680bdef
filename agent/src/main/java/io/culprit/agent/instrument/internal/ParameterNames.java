package io.culprit.agent.instrument.internal;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Gives a retransformed class back the parameter names it was compiled with ({@code javac
 * -parameters}). Before JDK 19 the class file that JVMTI rebuilds for a retransformation has no
 * {@code MethodParameters} attribute (JDK-8240908), so any retransformation, even one that changes
 * nothing, leaves the class's methods with names {@code arg0, arg1}, and a reset cannot bring them
 * back. Spring 6 reads handler parameter names only that way: a controller woven before its first
 * request answered 500 ("Name for argument of type [long] not specified") until the JVM restarted.
 *
 * <p>Registered ahead of every weaving transformer while anything is woven, this transformer copies
 * the attribute from the class's own class file (its loader's resource) into the bytes JVMTI hands
 * out, for each method that lacks it: the weave starts from bytes that have it, and a reset, which
 * retransforms once more with this transformer still registered, restores it. Only the attribute is
 * copied, for methods of the same name and descriptor; the code is JVMTI's, so what other agents
 * changed stays. On JDK 19+ the rebuilt bytes already have it and this returns null.
 */
public final class ParameterNames implements ClassFileTransformer {

    private static final ParameterNames INSTANCE = new ParameterNames();
    private static boolean registered;

    private ParameterNames() { }

    /** Registers the transformer, once; call before adding a weaving transformer. */
    public static synchronized void register(Instrumentation inst) {
        if (registered) return;
        inst.addTransformer(INSTANCE, true);
        registered = true;
    }

    /** Removes it, once nothing is woven any more (the last reset has run through it). */
    public static synchronized void unregister(Instrumentation inst) {
        if (!registered) return;
        inst.removeTransformer(INSTANCE);
        registered = false;
    }

    @Override
    public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (redefined == null) return null;  // a class being loaded has its own class file's attributes
        try {
            Map<String, List<Object[]>> original = parameters(ClassFileLocator.ForClassLoader.read(redefined));
            if (original.isEmpty()) return null;
            Set<String> missing = new HashSet<>(original.keySet());
            missing.removeAll(parameters(bytes).keySet());
            return missing.isEmpty() ? null : withParameters(bytes, original, missing);
        } catch (RuntimeException e) {
            return null;  // unreadable class file: the bytes stay as JVMTI made them
        }
    }

    /** Method name + descriptor → its MethodParameters entries, {name, access}; methods without the attribute are absent. */
    static Map<String, List<Object[]>> parameters(byte[] classFile) {
        Map<String, List<Object[]>> out = new HashMap<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                String key = name + desc;
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitParameter(String parameter, int flags) {
                        out.computeIfAbsent(key, k -> new ArrayList<>()).add(new Object[] {parameter, flags});
                    }
                };
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_FRAMES);
        return out;
    }

    /** {@code bytes} with the {@code missing} methods' MethodParameters from {@code original}; everything else as it was. */
    static byte[] withParameters(byte[] bytes, Map<String, List<Object[]>> original, Set<String> missing) {
        // No ClassReader in the writer: ASM would copy unchanged methods' attributes byte for byte, past what we add.
        ClassWriter writer = new ClassWriter(0);
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, ex);
                String key = name + desc;
                if (missing.contains(key)) {
                    // First, as the attribute comes before annotations and code in a method's visit.
                    for (Object[] p : original.get(key)) mv.visitParameter((String) p[0], (Integer) p[1]);
                }
                return mv;
            }
        }, 0);
        return writer.toByteArray();
    }
}
