package io.culprit.agent.instrument.expr;

import java.util.Objects;

/** Comparison and arithmetic with OGNL's loose numeric typing (long when both are integral). */
final class Ops {

    private Ops() { }

    static boolean integral(Object o) {
        return o instanceof Long || o instanceof Integer || o instanceof Short || o instanceof Byte;
    }

    static Object compare(String op, Object a, Object b) throws EvalException {
        if (a instanceof Number && b instanceof Number) {
            double x = ((Number) a).doubleValue();
            double y = ((Number) b).doubleValue();
            int c = integral(a) && integral(b) ? Long.compare(((Number) a).longValue(), ((Number) b).longValue()) : Double.compare(x, y);
            return test(op, c);
        }
        if (a instanceof Character && b instanceof String && ((String) b).length() == 1) {
            b = ((String) b).charAt(0);
        }
        if ("==".equals(op)) {
            return Objects.equals(a, b) || (a instanceof Enum && b instanceof String && ((Enum<?>) a).name().equals(b));
        }
        if ("!=".equals(op)) {
            return !(Objects.equals(a, b) || (a instanceof Enum && b instanceof String && ((Enum<?>) a).name().equals(b)));
        }
        if (a instanceof String && b instanceof String) {
            return test(op, ((String) a).compareTo((String) b));
        }
        throw new EvalException("cannot compare " + type(a) + " " + op + " " + type(b));
    }

    private static boolean test(String op, int c) {
        switch (op) {
            case "==": return c == 0;
            case "!=": return c != 0;
            case "<": return c < 0;
            case "<=": return c <= 0;
            case ">": return c > 0;
            default: return c >= 0;
        }
    }

    static Object arithmetic(String op, Object a, Object b) throws EvalException {
        if ("+".equals(op) && (a instanceof String || b instanceof String)) {
            return String.valueOf(a) + b;
        }
        if (!(a instanceof Number) || !(b instanceof Number)) {
            throw new EvalException("cannot compute " + type(a) + " " + op + " " + type(b));
        }
        if (integral(a) && integral(b)) {
            long x = ((Number) a).longValue();
            long y = ((Number) b).longValue();
            switch (op) {
                case "+": return x + y;
                case "-": return x - y;
                case "*": return x * y;
                default:
                    if (y == 0) {
                        throw new EvalException("division by zero");
                    }
                    return "/".equals(op) ? x / y : x % y;
            }
        }
        double x = ((Number) a).doubleValue();
        double y = ((Number) b).doubleValue();
        switch (op) {
            case "+": return x + y;
            case "-": return x - y;
            case "*": return x * y;
            case "/": return x / y;
            default: return x % y;
        }
    }

    static String type(Object o) {
        return o == null ? "null" : o.getClass().getSimpleName();
    }
}
