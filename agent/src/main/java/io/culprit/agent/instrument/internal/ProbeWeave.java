package io.culprit.agent.instrument.internal;

import io.culprit.agent.instrument.Plan;
import io.culprit.bootstrap.Bridge;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.JavaConstant;

/**
 * The probes' advice for one woven class, in one of two flavours picked by its class file: an
 * {@code invokedynamic} per call ({@link ProbeAdvice.Indy}, linked by the Bridge to the hook
 * itself) where the class file may hold one (Java 7+), else the Bridge's static calls
 * ({@link ProbeAdvice}). Also the static calls when the Bridge on the boot path is an older
 * culprit's that cannot link.
 */
public final class ProbeWeave {

    /** The Bridge's bootstrap method, or null when this JVM's Bridge predates it. */
    private static final Method LINK = linkMethod();

    private ProbeWeave() { }

    /**
     * The advice for {@code methods} of a class whose ids and read bits are given by method key:
     * {@code enter} and {@code exit} say which of the calls they get.
     */
    public static AsmVisitorWrapper advice(Advice.WithCustomMapping mapping, Map<String, Integer> ids,
                                           ElementMatcher<? super MethodDescription> methods, boolean enter, boolean exit) {
        AsmVisitorWrapper inline = enter && exit ? mapping.to(ProbeAdvice.Enter.class, ProbeAdvice.Exit.class).on(methods)
                : enter ? mapping.to(ProbeAdvice.Enter.class).on(methods)
                : mapping.to(ProbeAdvice.ExitOnly.class).on(methods);
        if (LINK == null) return inline;
        Advice.WithCustomMapping linked = mapping.bootstrap(LINK, (adviceMethod, isExit) -> (type, method) -> {
            Integer id = ids.get(method.getInternalName() + method.getDescriptor());
            return List.of(JavaConstant.Simple.ofLoaded(id == null ? 0 : id));
        });
        AsmVisitorWrapper indy = enter && exit ? linked.to(ProbeAdvice.Indy.Enter.class, ProbeAdvice.Indy.Exit.class).on(methods)
                : enter ? linked.to(ProbeAdvice.Indy.Enter.class).on(methods)
                : linked.to(ProbeAdvice.Indy.ExitOnly.class).on(methods);
        return new ByClassFile(indy, inline);
    }

    private static Method linkMethod() {
        try {
            return Bridge.class.getMethod("link", MethodHandles.Lookup.class, String.class, MethodType.class, int.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** {@code indy} for class files of Java 7 and later, {@code inline} for older ones. */
    private static final class ByClassFile implements AsmVisitorWrapper {
        private final AsmVisitorWrapper indy, inline;

        ByClassFile(AsmVisitorWrapper indy, AsmVisitorWrapper inline) {
            this.indy = indy;
            this.inline = inline;
        }

        @Override
        public int mergeWriter(int flags) {
            return inline.mergeWriter(indy.mergeWriter(flags));
        }

        @Override
        public int mergeReader(int flags) {
            return inline.mergeReader(indy.mergeReader(flags));
        }

        @Override
        public ClassVisitor wrap(TypeDescription type, ClassVisitor visitor, Implementation.Context context, TypePool pool,
                                 FieldList<FieldDescription.InDefinedShape> fields, MethodList<?> methods, int writerFlags,
                                 int readerFlags) {
            boolean canLink = context.getClassFileVersion().isAtLeast(ClassFileVersion.JAVA_V7);
            return (canLink ? indy : inline).wrap(type, visitor, context, pool, fields, methods, writerFlags, readerFlags);
        }
    }
}
