package io.culprit.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.bootstrap.Bridge;
import java.io.InputStream;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

class BridgeCheckTest {

    @Test
    void theSameBridgePassesAndANewerOneWithAMethodTheLoadedLacksIsRefused() throws Exception {
        byte[] same = bytesOf(Bridge.class);
        assertThat(BridgeCheck.missing(same, Bridge.class)).isNull();

        // A later culprit's Bridge: one more public method than the one this JVM loaded.
        ClassWriter w = new ClassWriter(0);
        new ClassReader(same).accept(new ClassVisitor(Opcodes.ASM9, w) {
            @Override
            public void visitEnd() {
                visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT, "probeAlloc", "(IJ)V", null, null);
                // What the core does without (ProbeWeave falls back to static calls): never a reason to refuse.
                visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT, "link", "(I)V", null, null);
                super.visitEnd();
            }
        }, ClassReader.SKIP_CODE);
        assertThat(BridgeCheck.missing(w.toByteArray(), Bridge.class)).isEqualTo("io.culprit.bootstrap.Bridge.probeAlloc(IJ)V");
        assertThat(BridgeCheck.message("io.culprit.bootstrap.Bridge.probeAlloc(IJ)V"))
                .startsWith("this JVM holds the bootstrap bridge of the culprit that first attached to it, which lacks")
                .contains("restart the JVM");
    }

    @Test
    void outsideItsJarsTheCoreChecksNothing() {
        // Under test the core runs from target/classes, with no bootstrap.jar beside it.
        assertThat(BridgeCheck.mismatch()).isNull();
    }

    private static byte[] bytesOf(Class<?> c) throws Exception {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            return in.readAllBytes();
        }
    }
}
