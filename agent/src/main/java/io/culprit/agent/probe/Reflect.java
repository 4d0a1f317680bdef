package io.culprit.agent.probe;

import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Calls public methods of application objects whose classes culprit cannot link against (they
 * live in the application's loaders, not the agent's). Lookups are cached per class; any failure
 * yields null, because a probe that cannot read a value reports it as not measured.
 */
final class Reflect {

    private static final ConcurrentHashMap<String, Method> CACHE = new ConcurrentHashMap<>();
    private static final Method MISSING;

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
        Class<?> c = target.getClass();
        String key = c.getName() + '@' + System.identityHashCode(c.getClassLoader()) + '#' + name + (arg == null ? "" : "(S)");
        Method m = CACHE.computeIfAbsent(key, k -> find(c, name, arg != null));
        if (m == MISSING) return null;
        try {
            return arg == null ? m.invoke(target) : m.invoke(target, arg);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    static double number(Object target, String name) {
        Object v = call(target, name);
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
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
