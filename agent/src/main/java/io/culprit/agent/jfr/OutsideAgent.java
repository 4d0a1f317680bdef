package io.culprit.agent.jfr;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Calls into the JDK from a stack that holds nothing of culprit's, for JDK objects that outlive
 * the agent and capture their creator's context.
 *
 * <p>Up to JDK 23 a new thread keeps its creator's access control context, and so does a JFR
 * recording: the protection domains of the classes on the creating stack, each holding its class
 * loader. A thread also takes its creator's context class loader, which is the agent's on
 * culprit's command threads. Whatever JFR creates from a culprit stack and keeps after detach (its
 * threads, at its first start; the idle guard's recording) would pin the agent's loader and all
 * its classes for the JVM's life (1,560 classes, 0.8 MB of metaspace on JDK 17; a heap dump after
 * detach showed these paths). Here the call runs on a thread of the JDK's common pool, which the
 * JDK creates with the system class loader and a context of its own, through a method-handle
 * proxy, so that every frame on its stack is the JDK's.
 */
final class OutsideAgent {
    private static final long WAIT_S = 10;

    private OutsideAgent() {
    }

    /** A JDK method handle taking no arguments; looking up a public JDK member does not fail in practice. */
    @FunctionalInterface
    interface Target {
        MethodHandle find() throws ReflectiveOperationException;
    }

    /**
     * The result of {@code target}, called outside the agent; if the application keeps every
     * common-pool thread busy for 10 s, called here instead, pin and all. Any failure but the
     * target's own unchecked ones comes back as an IllegalStateException naming {@code what}.
     */
    static Object call(String what, Target target) {
        try {
            MethodHandle h = target.find();
            @SuppressWarnings("unchecked")
            Callable<Object> task = MethodHandleProxies.asInterfaceInstance(Callable.class, h.asType(h.type().changeReturnType(Object.class)));
            try {
                return ForkJoinPool.commonPool().submit(task).get(WAIT_S, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return task.call();
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new IllegalStateException(what + ": " + cause, cause);
        } catch (RuntimeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + ": interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException(what + ": " + e, e);
        }
    }
}
