package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import java.util.List;

/**
 * A lock an EJB container takes around a session bean's business method, found by the container's
 * frames on the waiters' stacks (GlassFish's and Payara's {@code com.sun.ejb.containers}, WildFly's
 * {@code org.jboss.as.ejb3}). Two are the container's contract, not the application's code: a
 * {@code @Singleton} with container-managed concurrency takes its lock for writing in every method
 * not annotated {@code @Lock(READ)} (the default is WRITE), and a {@code @Stateful} instance admits
 * one call at a time (it is one client's conversation), so one instance shared by every request (a
 * stateful bean injected into an application-scoped one) runs them in turn. Either way the lock is
 * fair and parked on, but making it unfair, the usual cure, is not the application's to do. A blind
 * Payara service (session 48) had both: a parity check calling a partner inside a singleton's
 * method, and a stateful OTA session held by an application-scoped gateway; both read "make the
 * lock unfair".
 */
final class EjbLock {

    enum Kind { SINGLETON, STATEFUL }

    private static final String[] SINGLETON_CONTAINERS = {"com.sun.ejb.containers.CMCSingletonContainer.",
        "org.jboss.as.ejb3.concurrency.", "org.jboss.as.ejb3.component.singleton."};
    private static final String[] STATEFUL_CONTAINERS = {"com.sun.ejb.containers.StatefulSessionContainer.",
        "org.jboss.as.ejb3.component.stateful."};
    /** GlassFish's generated no-interface view: {@code a.b.__EJB31_Generated__Bean__Intf____Bean__.m}. */
    private static final String GENERATED = "__EJB31_Generated__";
    private static final String GENERATED_END = "__Intf____Bean__";

    final Kind kind;
    /** The bean's business method ({@code a.b.Bean.m}), or its method name alone behind an interface view; null when unseen. */
    final String method;
    /** The first application frame that called the bean (where a stateful instance is held); null when unseen. */
    final String client;

    private EjbLock(Kind kind, String method, String client) {
        this.kind = kind;
        this.method = method;
        this.client = client;
    }

    /** The container lock the waiters of {@code waiter} queue on, or null when they queue on none. */
    static EjbLock of(List<String> waiter) {
        Kind kind = null;
        String method = null;
        for (String f : waiter) {
            if (kind == null) {
                kind = Frames.startsWithAny(f, SINGLETON_CONTAINERS) ? Kind.SINGLETON : Frames.startsWithAny(f, STATEFUL_CONTAINERS) ? Kind.STATEFUL : null;
                continue;
            }
            // The view's frames, outermost last: a proxy's (the method's name), then the generated view's (the bean's class).
            String m = Frames.stripLine(f);
            if (m.contains(GENERATED) && m.contains(GENERATED_END)) {
                method = m.replace(GENERATED, "").replace(GENERATED_END, "");
            } else if (m.contains("$$$view")) {
                method = m.replaceAll("\\$\\$\\$view\\d+", "");
            } else if (m.contains("$Proxy")) {
                if (method == null) method = m.substring(m.lastIndexOf('.') + 1);
            } else if (Frames.isApplication(f)) {
                return new EjbLock(kind, method, f);
            }
        }
        return kind == null ? null : new EjbLock(kind, method, null);
    }

    /** The bean's class, {@code a.b.Bean}, or null when only a method name is known. */
    String beanClass() {
        return method == null || method.indexOf('.') < 0 ? null : method.substring(0, method.lastIndexOf('.'));
    }

    /** Where the fix goes: a singleton's method, or the code that holds the stateful instance. */
    String culprit(String otherwise) {
        if (kind == Kind.STATEFUL && client != null) return client;
        return method != null && method.indexOf('.') > 0 ? method : client != null ? client : otherwise;
    }

    /** "; it is the EJB container's …", with the remote call the bean makes inside it ({@code call} row, or -1). */
    String clause(Evidence ev, int call, Numbers n) {
        String bean = beanClass() == null ? "bean" : beanClass().substring(beanClass().lastIndexOf('.') + 1);
        String m = method == null ? "its methods" : method.substring(method.lastIndexOf('.') + 1);
        String inside = call < 0 ? "" : ", and " + m + " makes " + LockContentionRule.call(ev, call, n) + " while holding it";
        return kind == Kind.SINGLETON
                ? "; it is the EJB container's lock of the @Singleton " + bean + ": a business method without @Lock(READ)"
                + " takes it for writing (container-managed concurrency's default), so " + m + " runs one call at a time" + inside
                : "; it is the EJB container's lock of a @Stateful " + bean + " instance, which admits one call at a time"
                + (client == null ? "" : ", and every request calls the same instance from " + client
                + " (a stateful bean held by an application-scoped or singleton bean is shared by all its callers)") + inside;
    }

    String explanation() {
        return kind == Kind.SINGLETON
                ? "An EJB @Singleton with container-managed concurrency guards every business method with one read-write"
                + " lock, and a method without @Lock(LockType.READ) takes it for writing: one request at a time runs any of"
                + " them, for the method's whole length, remote calls included. The lock is the container's: its fairness is"
                + " not the problem, its mode is."
                : "An EJB @Stateful instance is one client's conversation: the container admits one call into an instance at a"
                + " time and parks the others. One instance injected into a bean that lives for the application is shared by"
                + " every request, so they run one after another through it.";
    }

    String fix() {
        return kind == Kind.SINGLETON
                ? "Annotate the methods that only read (or the class) @Lock(LockType.READ) and keep @Lock(WRITE) for the few"
                + " that change the singleton's state, or take over with @ConcurrencyManagement(ConcurrencyManagementType.BEAN)"
                + " and thread-safe state (ConcurrentHashMap, atomics); never make a remote call inside a WRITE-locked method."
                : "Make the bean @Stateless, or an @ApplicationScoped CDI bean, with what must be shared kept thread-safe (a"
                + " JAXBContext, a Schema) and what is not made per call (a JAXB Unmarshaller); or give each client its own"
                + " instance (inject the stateful bean into a @RequestScoped or @SessionScoped bean, not an @ApplicationScoped"
                + " or @Singleton one).";
    }
}
