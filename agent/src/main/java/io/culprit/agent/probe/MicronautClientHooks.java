package io.culprit.agent.probe;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;

/**
 * Micronaut's declarative HTTP clients ({@code @Client} interfaces): every method call goes
 * through {@code HttpClientIntroductionAdvice.intercept} on the caller's thread, which for a
 * method returning a value (not a future or a publisher) sends the request and waits for the
 * answer there. So that call is timed where the caller is, and a pooled connection its thread
 * holds meanwhile is seen (the Netty client's own I/O runs on its event loop, where no
 * application frame or held connection is). A method that returns a CompletableFuture is timed
 * to the future's completion (a callback, a small allocation per outbound call, as for the JDK's
 * HttpClient); one that returns a publisher is not timed: its caller's wait for it is JFR's park. Named by the interface and method (the URI is
 * built inside the call); an exception (Micronaut's client throws for 4xx and 5xx) fails it. A
 * transport culprit also hooks (the JDK's HttpClient under micronaut-http-client-jdk) leaves the
 * call to this hook.
 */
final class MicronautClientHooks {

    static final String ADVICE = "io.micronaut.http.client.interceptor.HttpClientIntroductionAdvice";

    private MicronautClientHooks() { }

    static Hook hook(CallProbe calls) {
        Getter declaringType = new Getter("getDeclaringType");
        Getter methodName = new Getter("getMethodName");
        ConcurrentHashMap<Class<?>, Boolean> asyncTypes = new ConcurrentHashMap<>();
        return new Hook(ADVICE, "intercept", "(Lio/micronaut/aop/MethodInvocationContext;)", Hook.TIMED | Hook.ARG0 | Hook.RETURNED) {
            @Override
            public long probeEnter(int id, Object self, Object arg0) {
                calls.outerClientEnter();
                return System.nanoTime();
            }

            @Override
            public void probeExit(int id, long start, Object self, Object arg0, Object arg1, Object returned, Throwable thrown) {
                long end = System.nanoTime();
                calls.outerClientExit();
                boolean future = returned instanceof CompletableFuture;
                if (!future && returned != null && asyncTypes.computeIfAbsent(returned.getClass(), MicronautClientHooks::async)) return;
                Object type = declaringType.call(arg0);
                String name = (type instanceof Class ? ((Class<?>) type).getSimpleName() : "?") + "." + methodName.call(arg0);
                if (!future) {
                    calls.record(end, "http", "@Client " + name, name, start, thrown);
                    return;
                }
                // Completed on the client's event loop: the stats (and the call site) and the held
                // connection are taken here, on the caller's thread, as Lettuce's async commands are.
                CallStats stats = calls.stats("http", "@Client " + name);
                boolean held = calls.holdsConnection();
                ((CompletableFuture<?>) returned).whenComplete((reply, failure) ->
                        calls.record(System.nanoTime(), stats, name, start, failure, held));
            }
        };
    }

    /** Whether a declarative method's result is still to come: a future, a stage or a reactive publisher. */
    static boolean async(Class<?> c) {
        if (CompletionStage.class.isAssignableFrom(c) || Future.class.isAssignableFrom(c)) return true;
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Class<?> i : k.getInterfaces()) if (publisher(i)) return true;
        }
        return false;
    }

    private static boolean publisher(Class<?> i) {
        if (i.getName().equals("org.reactivestreams.Publisher")) return true;
        for (Class<?> s : i.getInterfaces()) if (publisher(s)) return true;
        return false;
    }
}
