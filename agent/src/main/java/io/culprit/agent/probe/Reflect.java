package io.culprit.agent.probe;

import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Calls public methods of application objects whose classes culprit cannot link against (they
 * live in the application's loaders, not the agent's). Lookups are cached per class; any failure
 * yields null, because a probe that cannot read a value reports it as not measured.
 */
final class Reflect {

    /**
     * Class → {no-arg methods, (String) methods} by name: looked up without building a key on the
     * hot path. Not a ClassValue: that would tie the agent's loader to application classes after detach.
     */
    private static final ConcurrentHashMap<Class<?>, ConcurrentHashMap<String, Method>[]> CACHE = new ConcurrentHashMap<>();
    /** A lookup that found nothing; a sentinel, as a concurrent map holds no null. */
    static final Method MISSING;
    private static final Object[] NO_ARGS = {};
    /** One-element argument arrays per argument, so a call does not allocate its varargs array. */
    private static final ConcurrentHashMap<String, Object[]> ARGS = new ConcurrentHashMap<>();

    static {
        try {
            MISSING = Object.class.getMethod("hashCode");
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Reflect() { }

    static Object call(Object target, String name) {
        return call(target, name, null);
    }

    /** {@code name()} or, with an argument, {@code name(String)}. */
    static Object call(Object target, String name, String arg) {
        if (target == null) return null;
        Method m = method(target.getClass(), name, arg != null);
        if (m == null) return null;
        try {
            return m.invoke(target, arg == null ? NO_ARGS : argsOf(arg));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The value of field {@code name} declared by {@code target}'s class or a superclass, private
     * ones included; null when absent or closed to us (a module that does not open it). Uncached:
     * for reads made once per object, not per request.
     */
    static Object field(Object target, String name) {
        if (target == null) return null;
        java.lang.reflect.Field f = openField(target.getClass(), name);
        try {
            return f == NO_FIELD ? null : f.get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Class → its declared (or inherited) fields by name, opened once; {@link #NO_FIELD} where absent. */
    private static final ConcurrentHashMap<Class<?>, ConcurrentHashMap<String, java.lang.reflect.Field>> FIELDS = new ConcurrentHashMap<>();
    private static final java.lang.reflect.Field NO_FIELD;

    static {
        try {
            NO_FIELD = Reflect.class.getDeclaredField("FIELDS");
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #field}, with the lookup cached per class: for a private value read on every call of a hook. */
    static Object cachedField(Object target, String name) {
        if (target == null) return null;
        ConcurrentHashMap<String, java.lang.reflect.Field> byName = FIELDS.get(target.getClass());
        if (byName == null) byName = FIELDS.computeIfAbsent(target.getClass(), k -> new ConcurrentHashMap<>());
        java.lang.reflect.Field f = byName.get(name);
        if (f == null) {
            f = openField(target.getClass(), name);
            byName.putIfAbsent(name, f);
        }
        try {
            return f == NO_FIELD ? null : f.get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static java.lang.reflect.Field openField(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // on to the superclass
            } catch (RuntimeException e) {
                return NO_FIELD;  // a module that does not open it
            }
        }
        return NO_FIELD;
    }

    /** The accessible public {@code name()} or {@code name(String)} of {@code c}, cached; null if none. */
    static Method method(Class<?> c, String name, boolean stringArg) {
        ConcurrentHashMap<String, Method>[] byArity = CACHE.get(c);
        if (byArity == null) byArity = CACHE.computeIfAbsent(c, k -> maps());
        ConcurrentHashMap<String, Method> methods = byArity[stringArg ? 1 : 0];
        Method m = methods.get(name);  // get first: a capturing lambda would allocate on every call
        if (m == null) {
            m = find(c, name, stringArg);
            methods.putIfAbsent(name, m);
        }
        return m == MISSING ? null : m;
    }

    private static Object[] argsOf(String arg) {
        Object[] a = ARGS.get(arg);
        return a != null ? a : ARGS.computeIfAbsent(arg, k -> new Object[] {k});
    }

    static double number(Object target, String name) {
        Object v = call(target, name);
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
    }

    @SuppressWarnings("unchecked")
    private static ConcurrentHashMap<String, Method>[] maps() {
        return new ConcurrentHashMap[] {new ConcurrentHashMap<>(), new ConcurrentHashMap<>()};
    }

    private static Method find(Class<?> c, String name, boolean stringArg) {
        try {
            Method m = stringArg ? c.getMethod(name, String.class) : c.getMethod(name);
            // A public method of a non-public class must be called through its public declaration.
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException | RuntimeException e) {
            return MISSING;
        }
    }
}
