package io.culprit.agent.probe;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One hook's read of one public method ({@code name()} or {@code name(String)} with a fixed
 * argument) on application objects, for values read on every request (a response's status, a
 * request's route attribute). {@link Reflect#call} pays two map lookups and Method.invoke's
 * argument array and boxing per call; here the class last seen is compared by identity and the
 * method is called through a handle typed to return a primitive double or an Object, so a read
 * allocates nothing. Failures read as null / NaN, as in {@link Reflect}.
 */
final class Getter {

    private static final MethodType TO_OBJECT = MethodType.methodType(Object.class, Object.class);
    private static final MethodType TO_OBJECT_STRING = MethodType.methodType(Object.class, Object.class, String.class);
    private static final MethodType TO_DOUBLE = MethodType.methodType(double.class, Object.class);

    private final String name;
    /** The argument of {@code name(String)}; null: {@code name()}. */
    private final String arg;
    /** The class last read, unsynchronized: Bound is immutable, so a racing reader sees a whole one or looks up again. */
    private Bound last;
    /** Every class this site has read, so sites that see a few classes in turn do not rebuild handles. */
    private final ConcurrentHashMap<Class<?>, Bound> bound = new ConcurrentHashMap<>();

    Getter(String name) {
        this(name, null);
    }

    Getter(String name, String arg) {
        this.name = name;
        this.arg = arg;
    }

    /** The method's result on {@code target}; null when target is null or lacks the method. */
    Object call(Object target) {
        if (target == null) return null;
        Bound b = bound(target.getClass());
        try {
            if (b.object == null) return null;
            return arg == null ? (Object) b.object.invokeExact(target) : (Object) b.object.invokeExact(target, arg);
        } catch (Throwable e) {
            return null;
        }
    }

    /** The method's numeric result on {@code target}; NaN when it has none. */
    double number(Object target) {
        if (target == null) return Double.NaN;
        Bound b = bound(target.getClass());
        try {
            if (b.number != null) return (double) b.number.invokeExact(target);
        } catch (Throwable e) {
            return Double.NaN;
        }
        Object v = call(target);
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
    }

    private Bound bound(Class<?> c) {
        Bound b = last;
        if (b != null && b.type == c) return b;
        b = bound.get(c);
        if (b == null) b = bound.computeIfAbsent(c, this::bind);
        last = b;
        return b;
    }

    private Bound bind(Class<?> c) {
        Method m = Reflect.method(c, name, arg != null);
        if (m == null) return new Bound(c, null, null);
        try {
            // Reflect made the method accessible, so unreflect checks no access of its own.
            MethodHandle h = MethodHandles.lookup().unreflect(m);
            MethodHandle object = h.asType(arg == null ? TO_OBJECT : TO_OBJECT_STRING);
            Class<?> r = m.getReturnType();
            boolean numeric = r.isPrimitive() && r != boolean.class && r != char.class && r != void.class;
            return new Bound(c, object, arg == null && numeric ? h.asType(TO_DOUBLE) : null);
        } catch (IllegalAccessException | RuntimeException e) {
            return new Bound(c, null, null);
        }
    }

    /** A class's handles: {@code object} null when the class lacks the method; {@code number} only for a primitive number. */
    private static final class Bound {
        final Class<?> type;
        final MethodHandle object;
        final MethodHandle number;

        Bound(Class<?> type, MethodHandle object, MethodHandle number) {
            this.type = type;
            this.object = object;
            this.number = number;
        }
    }
}
