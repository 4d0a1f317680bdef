package io.culprit.agent.instrument.internal;

import io.culprit.agent.instrument.Plan;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.util.Map;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.ParameterDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.implementation.bytecode.constant.NullConstant;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Binds a {@link Read} parameter of {@link ProbeAdvice} per woven method: the receiver, an
 * argument or the returned value when that method's hook reads it, else a null constant, so a
 * value nobody reads costs nothing (a primitive would otherwise be boxed, a return value kept).
 */
public final class ProbeMapping implements Advice.OffsetMapping {

    /**
     * Which value: one of {@link Plan#SELF}, {@link Plan#ARG0} (or {@link Plan#OUTER} when the
     * method's reads say so), {@link Plan#ARG1}, {@link Plan#RETURNED}.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @java.lang.annotation.Target(ElementType.PARAMETER)
    public @interface Read {
        int value();
    }

    private static final TypeDescription.Generic OBJECT = TypeDescription.Generic.OfNonGenericType.ForLoadedType.of(Object.class);

    private final int what;
    private final Advice.OffsetMapping value;
    private final Map<String, Integer> readsByMethodKey;

    private ProbeMapping(int what, Advice.OffsetMapping value, Map<String, Integer> readsByMethodKey) {
        this.what = what;
        this.value = value;
        this.readsByMethodKey = readsByMethodKey;
    }

    /** The factory for one woven class: {@code readsByMethodKey} holds each method's {@link Plan} read bits. */
    public static Advice.OffsetMapping.Factory<Read> factory(Map<String, Integer> readsByMethodKey) {
        return new Advice.OffsetMapping.Factory<Read>() {
            @Override
            public Class<Read> getAnnotationType() {
                return Read.class;
            }

            @Override
            public Advice.OffsetMapping make(ParameterDescription.InDefinedShape target,
                                             AnnotationDescription.Loadable<Read> annotation, AdviceType adviceType) {
                int what = annotation.load().value();
                return new ProbeMapping(what, valueOf(what), readsByMethodKey);
            }
        };
    }

    private static Advice.OffsetMapping valueOf(int what) {
        switch (what) {
            case Plan.SELF: return new Advice.OffsetMapping.ForThisReference(OBJECT, true, Assigner.Typing.DYNAMIC, true);
            case Plan.ARG0: return new Advice.OffsetMapping.ForArgument.Unresolved(OBJECT, true, Assigner.Typing.DYNAMIC, 0, true);
            case Plan.ARG1: return new Advice.OffsetMapping.ForArgument.Unresolved(OBJECT, true, Assigner.Typing.DYNAMIC, 1, true);
            case Plan.RETURNED: return new Advice.OffsetMapping.ForReturnValue(OBJECT, true, Assigner.Typing.DYNAMIC);
            default: throw new IllegalArgumentException("not a probe value: " + what);
        }
    }

    @Override
    public Target resolve(TypeDescription type, MethodDescription method, Assigner assigner,
                          Advice.ArgumentHandler handler, Sort sort) {
        Integer reads = readsByMethodKey.get(method.getInternalName() + method.getDescriptor());
        if (reads != null && what == Plan.ARG0 && (reads & Plan.OUTER) != 0) {
            return outer(type);
        }
        if (reads == null || (reads & what) == 0) {
            return new Target.ForStackManipulation(NullConstant.INSTANCE);
        }
        return value.resolve(type, method, assigner, handler, sort);
    }

    /**
     * The enclosing instance of an inner class, read by the woven method from its own field (no
     * reflection: ThreadPoolExecutor$Worker's is in java.base, closed to the agent).
     */
    private static Target outer(TypeDescription type) {
        FieldList<FieldDescription.InDefinedShape> f = type.getDeclaredFields().filter(ElementMatchers.named("this$0"));
        if (f.size() != 1) {
            throw new IllegalStateException(type.getName() + " has no enclosing instance field this$0");
        }
        return new Target.ForField.ReadOnly(f.getOnly());
    }
}
