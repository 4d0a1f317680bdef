package io.culprit.agent.instrument;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/**
 * Renders watched values like Arthas's {@code -x}: containers and objects are opened up to the
 * given depth ({@code @Type[...]}), deeper values show as their {@code toString()}. Bounded: at
 * most 20 elements per container and 2,000 characters per value, so a huge list cannot flood the
 * client or stall the application thread that evaluates it.
 */
final class ObjectRenderer {

    private static final int MAX_ITEMS = 20;
    private static final int MAX_CHARS = 2_000;

    private ObjectRenderer() { }

    static String render(Object value, int depth) {
        StringBuilder sb = new StringBuilder();
        append(sb, value, depth, "");
        return sb.length() > MAX_CHARS ? sb.substring(0, MAX_CHARS) + "...(truncated)" : sb.toString();
    }

    private static void append(StringBuilder sb, Object v, int depth, String indent) {
        if (sb.length() > MAX_CHARS) {
            return;
        }
        if (v == null) {
            sb.append("null");
        } else if (v instanceof CharSequence) {
            sb.append("@String[").append(v).append(']');
        } else if (v instanceof Number || v instanceof Boolean || v instanceof Character || v instanceof Enum) {
            sb.append('@').append(v.getClass().getSimpleName()).append('[').append(v).append(']');
        } else if (v instanceof Throwable) {
            Throwable t = (Throwable) v;
            sb.append(t);
            StackTraceElement[] st = t.getStackTrace();
            for (int i = 0; depth > 0 && i < Math.min(st.length, 3); i++) {
                sb.append('\n').append(indent).append("    at ").append(st[i]);
            }
        } else if (depth <= 0 && v.getClass().isArray()) {
            sb.append('@').append(v.getClass().getComponentType().getSimpleName()).append("[][size=")
                    .append(Array.getLength(v)).append(']');
        } else if (depth <= 0) {
            sb.append(safeToString(v));
        } else if (v.getClass().isArray()) {
            int n = Array.getLength(v);
            items(sb, v.getClass().getComponentType().getSimpleName() + "[]", n, new Iterator<Object>() {
                int i;
                @Override public boolean hasNext() { return i < n; }
                @Override public Object next() { return Array.get(v, i++); }
            }, depth, indent);
        } else if (v instanceof Collection) {
            items(sb, v.getClass().getSimpleName(), ((Collection<?>) v).size(), ((Collection<?>) v).iterator(), depth, indent);
        } else if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) v;
            sb.append('@').append(v.getClass().getSimpleName()).append("[size=").append(m.size()).append(']').append('[');
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (i++ == MAX_ITEMS) {
                    sb.append("\n").append(indent).append("    ...");
                    break;
                }
                sb.append('\n').append(indent).append("    ");
                append(sb, e.getKey(), depth - 1, indent + "    ");
                sb.append(" : ");
                append(sb, e.getValue(), depth - 1, indent + "    ");
                sb.append(',');
            }
            sb.append('\n').append(indent).append(']');
        } else {
            fields(sb, v, depth, indent);
        }
    }

    private static void items(StringBuilder sb, String type, int size, Iterator<?> it, int depth, String indent) {
        sb.append('@').append(type).append('[');
        for (int i = 0; i < size && it.hasNext(); i++) {
            if (i == MAX_ITEMS) {
                sb.append('\n').append(indent).append("    ...(").append(size - MAX_ITEMS).append(" more)");
                break;
            }
            sb.append('\n').append(indent).append("    ");
            append(sb, it.next(), depth - 1, indent + "    ");
            sb.append(',');
        }
        sb.append(size == 0 ? "]" : "\n" + indent + "]");
    }

    private static void fields(StringBuilder sb, Object v, int depth, String indent) {
        sb.append('@').append(v.getClass().getSimpleName()).append('[');
        boolean any = false;
        for (Class<?> c = v.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                any = true;
                sb.append('\n').append(indent).append("    ").append(f.getName()).append('=');
                try {
                    f.setAccessible(true);
                    append(sb, f.get(v), depth - 1, indent + "    ");
                } catch (ReflectiveOperationException | RuntimeException e) {
                    sb.append("<inaccessible>");
                }
                sb.append(',');
            }
        }
        sb.append(any ? "\n" + indent + "]" : "]");
    }

    private static String safeToString(Object v) {
        try {
            return String.valueOf(v);
        } catch (RuntimeException e) {
            return v.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(v));
        }
    }
}
