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
 *
 * <p>It also tells an {@link Adjacency} registrar where two timing points have nothing costly
 * between them, so one clock read can serve both: a call followed by straight-line code that
 * cannot branch, throw, allocate or call (loads, stores, constants, arithmetic) up to the next
 * woven call, or up to a return of a root (whose exit advice always follows); and a root whose
 * code up to its first woven call is such code. Jumps into such a stretch do not matter: the
 * deferred read is settled by whatever timing point comes next, and only the call that starts
 * the stretch leaves one pending.
 */
public final class CallSiteVisitor extends MethodVisitor {

    static final String BRIDGE = "io/culprit/bootstrap/Bridge";

    /** Implemented by a registrar that can let adjacent timing points share one clock read. */
    public interface Adjacency {
        /** Whether {@code method} gets this registrar's entry/exit advice (a trace root). */
        boolean isRoot(MethodTarget method);

        /** The root's entry can take its start time from its first woven call. */
        void startShared(MethodTarget root);

        /** The end of the call at {@code site} can be read by the next timing point. */
        void endShared(int site);
    }

    private final MethodTarget caller;
    private final Plan.SiteRegistrar registrar;
    private final Adjacency adjacency;
    private final boolean root;
    private int index;
    private int line;
    /** The last woven call, while only cheap straight-line code followed it; -1 otherwise. */
    private int openSite = -1;
    /** Only cheap straight-line code since the method started. */
    private boolean fromStart = true;

    public CallSiteVisitor(MethodVisitor delegate, MethodTarget caller, Plan.SiteRegistrar registrar) {
        super(Opcodes.ASM9, delegate);
        this.caller = caller;
        this.registrar = registrar;
        this.adjacency = registrar instanceof Adjacency ? (Adjacency) registrar : null;
        this.root = adjacency != null && adjacency.isRoot(caller);
    }

    @Override
    public void visitLineNumber(int line, Label start) {
        this.line = line;
        super.visitLineNumber(line, start);
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
        if (owner.equals(BRIDGE)) {  // another command's advice: costs a clock read of its own
            costly();
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            return;
        }
        int site = registrar.site(caller, index++, owner, name, descriptor, line);
        if (site < 0) {  // the registrar leaves this call out (trace --skip-jdk): untimed work
            costly();
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
            return;
        }
        if (adjacency != null) {
            if (openSite >= 0) {
                adjacency.endShared(openSite);
            }
            if (fromStart && root) {
                adjacency.startShared(caller);
            }
        }
        super.visitLdcInsn(site);
        super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "beforeCall", "(I)V", false);
        super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
        super.visitLdcInsn(site);
        super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "afterCall", "(I)V", false);
        openSite = site;
        fromStart = false;
    }

    @Override
    public void visitInsn(int opcode) {
        if (opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
            if (openSite >= 0 && root) {  // the root's exit advice reads the clock next
                adjacency.endShared(openSite);
            }
            costly();
        } else if (!cheap(opcode)) {
            costly();
        }
        super.visitInsn(opcode);
    }

    /** Constants, stack shuffles, arithmetic that cannot throw, conversions, comparisons. */
    private static boolean cheap(int opcode) {
        if (opcode == Opcodes.IDIV || opcode == Opcodes.LDIV || opcode == Opcodes.IREM || opcode == Opcodes.LREM) {
            return false;  // may throw ArithmeticException
        }
        return opcode <= Opcodes.DCONST_1 || (opcode >= Opcodes.POP && opcode <= Opcodes.DCMPG && opcode != Opcodes.IINC);
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
        if (opcode == Opcodes.NEWARRAY) {
            costly();
        }
        super.visitIntInsn(opcode, operand);
    }

    @Override
    public void visitVarInsn(int opcode, int varIndex) {
        if (opcode == Opcodes.RET) {
            costly();
        }
        super.visitVarInsn(opcode, varIndex);
    }

    @Override
    public void visitLdcInsn(Object value) {
        // Class, method handle and dynamic constants may load classes or run bootstrap code.
        if (!(value instanceof Number || value instanceof String)) {
            costly();
        }
        super.visitLdcInsn(value);
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
        costly();
        super.visitTypeInsn(opcode, type);
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
        costly();  // may initialize a class or throw
        super.visitFieldInsn(opcode, owner, name, descriptor);
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String descriptor, net.bytebuddy.jar.asm.Handle bsm, Object... args) {
        costly();
        super.visitInvokeDynamicInsn(name, descriptor, bsm, args);
    }

    @Override
    public void visitJumpInsn(int opcode, Label label) {
        costly();
        super.visitJumpInsn(opcode, label);
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
        costly();
        super.visitTableSwitchInsn(min, max, dflt, labels);
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
        costly();
        super.visitLookupSwitchInsn(dflt, keys, labels);
    }

    @Override
    public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
        costly();
        super.visitMultiANewArrayInsn(descriptor, numDimensions);
    }

    /** Something that may take time, branch or throw: the next timing point reads its own clock. */
    private void costly() {
        openSite = -1;
        fromStart = false;
    }

    @Override
    public void visitMaxs(int maxStack, int maxLocals) {
        super.visitMaxs(maxStack + 1, maxLocals);
    }
}
