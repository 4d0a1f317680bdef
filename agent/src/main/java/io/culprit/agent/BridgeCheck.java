package io.culprit.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * The bootstrap bridge ({@code io.culprit.bootstrap}) is appended to the boot class path once per
 * JVM, by the first culprit that attaches, and stays. A later culprit's core and the code it weaves
 * link against that first bridge: a method this culprit's bridge has and the loaded one lacks would
 * throw {@code NoSuchMethodError}, in woven code into the application. The core refuses to start
 * instead. Bridges that differ only inside method bodies pass: what links is the same.
 */
final class BridgeCheck {

    /**
     * What the core does without when the loaded bridge predates it: {@code ProbeWeave} looks
     * {@code Bridge.link} up reflectively and weaves static calls instead, and {@code Spy.link} is
     * a default method the dispatcher merely overrides.
     */
    private static final Set<String> OPTIONAL = Set.of("io.culprit.bootstrap.Bridge.link", "io.culprit.bootstrap.Spy.link");

    private BridgeCheck() { }

    /** Why this core must not run in this JVM, or null; null too when it runs outside its jars (tests). */
    static String mismatch() {
        try {
            Path own = ownBridge();
            if (own == null) return null;
            try (JarFile jar = new JarFile(own.toFile(), false)) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    JarEntry entry = e.nextElement();
                    if (!entry.getName().endsWith(".class")) continue;
                    String name = entry.getName().substring(0, entry.getName().length() - 6).replace('/', '.');
                    String missing;
                    try (InputStream in = jar.getInputStream(entry)) {
                        missing = missing(in.readAllBytes(), Class.forName(name, false, null));
                    } catch (ClassNotFoundException absent) {
                        missing = name;
                    }
                    if (missing != null) return message(missing);
                }
            }
            return null;
        } catch (IOException | URISyntaxException | RuntimeException | LinkageError e) {
            return null;  // cannot tell: the bridge of this build is the likely one, as before the check
        }
    }

    static String message(String missing) {
        return "this JVM holds the bootstrap bridge of the culprit that first attached to it, which lacks "
                + missing + " that this culprit uses; restart the JVM to attach this version, or attach with"
                + " the culprit that attached first";
    }

    /** The first non-private method or constructor of {@code classFile} that {@code loaded} lacks, or null. */
    static String missing(byte[] classFile, Class<?> loaded) {
        Set<String> have = new HashSet<>();
        for (Method m : loaded.getDeclaredMethods()) {
            have.add(m.getName() + MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString());
        }
        for (Constructor<?> c : loaded.getDeclaredConstructors()) {
            have.add("<init>" + MethodType.methodType(void.class, c.getParameterTypes()).toMethodDescriptorString());
        }
        String[] first = new String[1];
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                boolean linkable = (access & Opcodes.ACC_PRIVATE) == 0 && !"<clinit>".equals(name)
                        && !OPTIONAL.contains(loaded.getName() + "." + name);
                if (first[0] == null && linkable && !have.contains(name + desc)) {
                    first[0] = loaded.getName() + "." + name + desc;
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return first[0];
    }

    /** The bootstrap.jar beside this core's core.jar; null when the core does not run from a jar. */
    private static Path ownBridge() throws URISyntaxException {
        java.security.CodeSource cs = BridgeCheck.class.getProtectionDomain().getCodeSource();
        if (cs == null || cs.getLocation() == null) return null;
        Path core = Paths.get(cs.getLocation().toURI());
        Path bridge = core.resolveSibling("bootstrap.jar");
        return Files.isRegularFile(core) && Files.isRegularFile(bridge) ? bridge : null;
    }
}
