package io.culprit.agent.probe;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * A Spring annotation that a proxy applies (@Cacheable, @Async, @Transactional) on a method that
 * ran without that proxy's interceptor anywhere below it on the stack: the method was called on
 * {@code this} from its own class, or its bean was never proxied (caching not enabled, a final or
 * private method). The service then runs what the annotation was meant to spare it: a cached
 * method's query on every request, an async method on the request's thread. Spring logs nothing.
 * Read on the stack walk a call site already makes once per call target ({@link CallSite}), from
 * the annotations of the application frames on it; never per call.
 */
final class ProxyBypass {
    /** The annotations, by the interceptor whose frame shows that the proxy applied them. */
    private enum Kind {
        CACHEABLE("@Cacheable", new String[] {"org.springframework.cache.annotation.Cacheable"},
                new String[] {"org.springframework.cache.interceptor.", "org.springframework.cache.aspectj."}),
        ASYNC("@Async", new String[] {"org.springframework.scheduling.annotation.Async"},
                new String[] {"org.springframework.aop.interceptor.AsyncExecution", "org.springframework.scheduling.aspectj."}),
        TRANSACTIONAL("@Transactional", new String[] {"org.springframework.transaction.annotation.Transactional",
                "jakarta.transaction.Transactional", "javax.transaction.Transactional"},
                new String[] {"org.springframework.transaction.interceptor.", "org.springframework.transaction.aspectj."});

        final String label;
        final String[] annotations;
        final String[] interceptors;

        Kind(String label, String[] annotations, String[] interceptors) {
            this.label = label;
            this.annotations = annotations;
            this.interceptors = interceptors;
        }
    }

    /** Frameworks' own classes: their methods carry none of the application's annotations worth reading. */
    private static final String[] LIBRARIES = {"org.springframework.", "org.apache.", "org.hibernate.", "com.zaxxer.",
        "com.fasterxml.", "tools.jackson.", "ch.qos.", "org.slf4j.", "io.micrometer.", "org.eclipse.", "io.undertow.", "io.netty.", "reactor."};

    /** One stack walk's state, fed leaf first. */
    static final class Scan {
        private Kind pending;
        /** The pending method as class.method, and with its line. */
        private String method;
        private String frame;
        private String caller;
        private String found;

        void accept(StackWalker.StackFrame f, boolean skipped) {
            if (found != null) return;
            String c = f.getClassName();
            if (pending != null) {
                if (startsWithAny(c, pending.interceptors)) {
                    pending = null; // the proxy applied it
                } else if (caller == null && !(c + "." + f.getMethodName()).equals(method)) {
                    caller = c + "." + f.getMethodName() + ":" + f.getLineNumber();
                }
            }
            if (pending != null || skipped || startsWithAny(c, LIBRARIES) || c.contains("$$")) return;
            Kind k = annotated(f);
            if (k != null) {
                pending = k;
                method = c + "." + f.getMethodName();
                caller = null;
                frame = method + ":" + f.getLineNumber();
            }
        }

        /** At the root: the annotation no interceptor applied, as "@Cacheable a.B.m:12 called from a.B.n:30"; null when none. */
        String result() {
            if (found == null && pending != null) found = pending.label + " " + frame + (caller == null ? "" : " called from " + caller);
            return found;
        }
    }

    private ProxyBypass() { }

    /** The kind of the first proxied annotation on the frame's method or, for a public method, its class. */
    private static Kind annotated(StackWalker.StackFrame f) {
        try {
            Class<?> type = f.getDeclaringClass();
            Method m = type.getDeclaredMethod(f.getMethodName(), f.getMethodType().parameterArray());
            Kind k = kindOf(m.getDeclaredAnnotations());
            return k != null || !Modifier.isPublic(m.getModifiers()) ? k : kindOf(type.getDeclaredAnnotations());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // a constructor, a lambda's synthetic method, an annotation that cannot load: nothing to read
        }
    }

    private static Kind kindOf(Annotation[] annotations) {
        for (Annotation a : annotations) {
            String name = a.annotationType().getName();
            for (Kind k : Kind.values()) for (String n : k.annotations) if (n.equals(name)) return k;
        }
        return null;
    }

    private static boolean startsWithAny(String s, String[] prefixes) {
        for (String p : prefixes) if (s.startsWith(p)) return true;
        return false;
    }
}
