package io.culprit.agent.instrument;

import io.culprit.agent.instrument.internal.Dispatcher;
import java.lang.instrument.Instrumentation;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;

/** One command's weaving. {@link #close()} retransforms its classes back and frees its ids. */
public final class Installation {

    final Instrumentation inst;
    private final ResettableClassFileTransformer transformer;
    private final List<Integer> ids;
    private final int classCount;
    final java.util.Set<Class<?>> classes;
    private volatile String note = "";
    private volatile boolean closed;

    Installation(Instrumentation inst, ResettableClassFileTransformer transformer, List<Integer> ids, int classCount,
                 java.util.Set<Class<?>> classes) {
        this.classes = classes;
        this.inst = inst;
        this.transformer = transformer;
        this.ids = ids;
        this.classCount = classCount;
    }

    /** "" or "; N class(es) not woven: first error" and/or threads looping in a woven class, for the command's Affect line. */
    public String note() {
        return note;
    }

    void failures(List<String> errors) {
        if (!errors.isEmpty()) {
            note += "; " + errors.size() + " class(es) not woven: " + errors.get(0);
        }
    }

    /** What {@link LoopingThreads} found before the weave. */
    void looping(String loops) {
        note += loops;
    }

    public int classCount() {
        return classCount;
    }

    /** True once reset, by its command or by {@code reset}/{@code stop}: the command should end. */
    public boolean closed() {
        return closed;
    }

    /** Idempotent. Returns how many classes went back to their previous bytecode. */
    public int close() {
        synchronized (this) {
            if (closed) {
                return 0;
            }
            closed = true;
            // Ids go first: events from frames still running woven code are dropped from here on.
            List<Integer> copy;
            synchronized (ids) {
                copy = new java.util.ArrayList<>(ids);
            }
            Dispatcher.INSTANCE.unregisterAll(copy);
            try {
                transformer.reset(inst, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
            } catch (RuntimeException e) {
                // The ids are gone, so leftover bytecode is inert; the Bridge still goes back to its no-op.
            }
        }
        // Outside this lock: resetAll takes the Instrumenter lock first, then this one.
        Instrumenter.removed(this);
        return classCount;
    }
}
