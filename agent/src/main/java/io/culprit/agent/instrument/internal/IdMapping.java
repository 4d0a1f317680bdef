package io.culprit.agent.instrument.internal;

import java.util.Map;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.implementation.bytecode.constant.IntegerConstant;

/** Binds {@link MethodId} to the woven method's id as an {@code int} constant in the bytecode. */
public final class IdMapping implements Advice.OffsetMapping {

    private final Map<String, Integer> idsByMethodKey;

    public IdMapping(Map<String, Integer> idsByMethodKey) {
        this.idsByMethodKey = idsByMethodKey;
    }

    @Override
    public Target resolve(TypeDescription type, MethodDescription method, Assigner assigner,
                          Advice.ArgumentHandler handler, Sort sort) {
        Integer id = idsByMethodKey.get(method.getInternalName() + method.getDescriptor());
        // Unplanned methods are never matched; 0 is the id the dispatcher ignores.
        return new Target.ForStackManipulation(IntegerConstant.forValue(id == null ? 0 : id));
    }
}
