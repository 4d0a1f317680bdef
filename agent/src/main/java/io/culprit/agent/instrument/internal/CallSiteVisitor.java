package io.culprit.agent.instrument.internal;

import io.culprit.agent.instrument.MethodTarget;
import io.culprit.agent.instrument.Plan;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Wraps every call instruction of a traced method in {@code Bridge.beforeCall(site)} /
 * {@code Bridge.afterCall(site)}, the way Arthas's trace does: the callee itself is not touched,
 * so calls into the JDK are timed without weaving the JDK. The inserted code has no net stack
 * effect and adds no branch targets, so existing stack map frames stay valid; only max stack
 * grows by one.
 */
public final class CallSiteVisitor extends MethodVisitor {

    static final String BRIDGE = "io/culprit/bootstrap/Bridge";

    private final MethodTarget caller;
    private final Plan.SiteRegistrar registrar;
    private int index;
    private int line;

    public CallSiteVisitor(MethodVisitor delegate, MethodTarget caller, Plan.SiteRegistrar registrar) {
        super(Opcodes.ASM9, delegate);
        this.caller = caller;
        this.registrar = registrar;
    }

    @Override
    public void visitLineNumber(int line, Label start) {
        this.line = line;
        super.visitLineNumber(line, start);
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
        if (owner.equals(BRIDGE)) {  // the entry/exit advice's own calls
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            return;
        }
        int site = registrar.site(caller, index++, owner, name, descriptor, line);
        if (site < 0) {  // the registrar leaves this call out (trace --skip-jdk)
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            return;
        }
        super.visitLdcInsn(site);
        super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "beforeCall", "(I)V", false);
        super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
        super.visitLdcInsn(site);
        super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "afterCall", "(I)V", false);
    }

    @Override
    public void visitMaxs(int maxStack, int maxLocals) {
        super.visitMaxs(maxStack + 1, maxLocals);
    }
}
