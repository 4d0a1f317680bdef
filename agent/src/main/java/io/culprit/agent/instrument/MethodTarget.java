package io.culprit.agent.instrument;

import io.culprit.agent.instrument.internal.ClassBytes;

/** One concrete method of one loaded class that a command will weave. */
public final class MethodTarget {

    public final Class<?> type;
    public final ClassBytes.Method method;

    public MethodTarget(Class<?> type, ClassBytes.Method method) {
        this.type = type;
        this.method = method;
    }

    /** {@code com.acme.Shop:checkout()} — the form Arthas prints. */
    public String display() {
        return type.getName() + ":" + method.name + "()";
    }

    @Override
    public String toString() {
        return display();
    }
}
