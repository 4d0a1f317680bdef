package io.culprit.agent.instrument.expr;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reflection behind property, index and method access. Safe mode allows getters, fields and a
 * short list of side-effect-free no-argument methods; everything else is refused by the parser.
 */
final class Access {

    private static final Set<String> SAFE_METHODS = Set.of("size", "length", "isEmpty", "toString",
            "hashCode", "getClass", "getMessage", "getLocalizedMessage", "getCause", "name", "ordinal",
            "getSimpleName", "getName", "keySet", "values");

    private Access() { }

    static boolean safeMethod(String name) {
        return SAFE_METHODS.contains(name) || name.startsWith("get") || name.startsWith("is");
    }

    static Object property(Object target, String name) throws EvalException {
        if (target == null) {
            throw new EvalException("cannot read ." + name + " of null");
        }
        if (target instanceof Map) {
            return ((Map<?, ?>) target).get(name);
        }
        if (target.getClass().isArray() && "length".equals(name)) {
            return Array.getLength(target);
        }
        String cap = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        for (String getter : new String[] {"get" + cap, "is" + cap}) {
            try {
                Method m = target.getClass().getMethod(getter);
                if (!Modifier.isStatic(m.getModifiers())) {
                    m.setAccessible(true);
                    return m.invoke(target);
                }
            } catch (NoSuchMethodException ignored) {
                // try the next form, then the field
            } catch (ReflectiveOperationException | RuntimeException e) {
                break;  // inaccessible getter (module rules): fall back to the field
            }
        }
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                if (!Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    return f.get(target);
                }
            } catch (NoSuchFieldException ignored) {
                // keep walking up
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new EvalException("cannot read ." + name + " of " + target.getClass().getName() + ": " + e.getMessage());
            }
        }
        throw new EvalException("no property '" + name + "' on " + target.getClass().getName());
    }

    static Object index(Object target, Object index) throws EvalException {
        if (target == null) {
            throw new EvalException("cannot index null");
        }
        if (target instanceof Map) {
            return ((Map<?, ?>) target).get(index);
        }
        if (!(index instanceof Number)) {
            throw new EvalException("index must be a number, got " + Ops.type(index));
        }
        int i = ((Number) index).intValue();
        try {
            if (target.getClass().isArray()) {
                return Array.get(target, i);
            }
            if (target instanceof List) {
                return ((List<?>) target).get(i);
            }
        } catch (IndexOutOfBoundsException e) {
            throw new EvalException("index " + i + " out of bounds");
        }
        throw new EvalException("cannot index " + target.getClass().getName());
    }

    static Object call(Object target, String name, List<Object> args) throws EvalException {
        if (target == null) {
            throw new EvalException("cannot call ." + name + "() on null");
        }
        if (target.getClass().isArray() && "length".equals(name) && args.isEmpty()) {
            return Array.getLength(target);
        }
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                Object[] coerced = m.getName().equals(name) && !Modifier.isStatic(m.getModifiers())
                        ? coerce(m.getParameterTypes(), args) : null;
                if (coerced != null) {
                    try {
                        Method callable = publicVersion(target.getClass(), m);
                        return callable.invoke(target, coerced);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        Throwable cause = e.getCause() != null ? e.getCause() : e;
                        throw new EvalException("." + name + "() failed: " + cause);
                    }
                }
            }
        }
        throw new EvalException("no method " + name + "/" + args.size() + " on " + target.getClass().getName());
    }

    /** Prefer the public interface method (e.g. List.size) so that module rules do not refuse it. */
    private static Method publicVersion(Class<?> type, Method m) {
        try {
            Method p = type.getMethod(m.getName(), m.getParameterTypes());
            for (Class<?> i : allInterfaces(type)) {
                try {
                    return i.getMethod(m.getName(), m.getParameterTypes());
                } catch (NoSuchMethodException ignored) {
                    // next
                }
            }
            p.setAccessible(true);
            return p;
        } catch (NoSuchMethodException | RuntimeException e) {
            try {
                m.setAccessible(true);
            } catch (RuntimeException ignored) {
                // invoke will report it
            }
            return m;
        }
    }

    private static List<Class<?>> allInterfaces(Class<?> type) {
        List<Class<?>> out = new java.util.ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (Modifier.isPublic(i.getModifiers())) {
                    out.add(i);
                }
            }
        }
        return out;
    }

    /** Only reachable with --unsafe: loads a class by name from the system loader. */
    static Object staticMember(String cls, String member, boolean call, List<Object> args) throws EvalException {
        try {
            Class<?> c = Class.forName(cls, false, ClassLoader.getSystemClassLoader());
            if (!call) {
                return c.getField(member).get(null);
            }
            for (Method m : c.getMethods()) {
                Object[] coerced = m.getName().equals(member) && Modifier.isStatic(m.getModifiers())
                        ? coerce(m.getParameterTypes(), args) : null;
                if (coerced != null) {
                    return m.invoke(null, coerced);
                }
            }
            throw new EvalException("no static method " + member + "/" + args.size() + " on " + cls);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new EvalException("@" + cls + "@" + member + " failed: " + e);
        }
    }

    static Object construct(String cls, List<Object> args) throws EvalException {
        try {
            Class<?> c = Class.forName(cls, false, ClassLoader.getSystemClassLoader());
            for (java.lang.reflect.Constructor<?> k : c.getConstructors()) {
                Object[] coerced = coerce(k.getParameterTypes(), args);
                if (coerced != null) {
                    return k.newInstance(coerced);
                }
            }
            throw new EvalException("no constructor " + cls + "/" + args.size());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new EvalException("new " + cls + " failed: " + e);
        }
    }

    /** Literals are long/double: narrow them to the parameter types, or null when they do not fit. */
    static Object[] coerce(Class<?>[] types, List<Object> args) {
        if (types.length != args.size()) {
            return null;
        }
        Object[] out = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            Object a = args.get(i);
            Class<?> t = types[i];
            if (a instanceof Number && (t.isPrimitive() || Number.class.isAssignableFrom(t))) {
                Number n = (Number) a;
                boolean integralArg = Ops.integral(a);
                if (t == int.class || t == Integer.class) {
                    a = integralArg ? (Object) n.intValue() : null;
                } else if (t == long.class || t == Long.class) {
                    a = integralArg ? (Object) n.longValue() : null;
                } else if (t == double.class || t == Double.class) {
                    a = n.doubleValue();
                } else if (t == float.class || t == Float.class) {
                    a = n.floatValue();
                } else if (t == short.class || t == Short.class) {
                    a = integralArg ? (Object) n.shortValue() : null;
                } else if (t == byte.class || t == Byte.class) {
                    a = integralArg ? (Object) n.byteValue() : null;
                } else if (!t.isInstance(a)) {
                    a = null;
                }
                if (a == null) {
                    return null;
                }
            } else if (a == null ? t.isPrimitive() : !(t.isPrimitive() ? primitiveFits(t, a) : t.isInstance(a))) {
                return null;
            }
            out[i] = a;
        }
        return out;
    }

    private static boolean primitiveFits(Class<?> t, Object a) {
        return (t == boolean.class && a instanceof Boolean) || (t == char.class && a instanceof Character);
    }
}
