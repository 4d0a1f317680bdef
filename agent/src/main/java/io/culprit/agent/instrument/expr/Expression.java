package io.culprit.agent.instrument.expr;

/**
 * An OGNL-like expression in Arthas's style ({@code '{params, returnObj, throwExp}'},
 * {@code 'params[0].items.size() > 3'}, {@code '#cost > 200'}). Sandboxed unless the agent was
 * started with {@code --unsafe}: property, field, array/list/map access, a few side-effect-free
 * methods, comparisons, arithmetic and logic. Static calls ({@code @Cls@m()}), static fields,
 * constructors ({@code new}) and other methods are refused when parsing, with their position.
 */
public final class Expression {

    private final String text;
    private final Node root;

    private Expression(String text, Node root) {
        this.text = text;
        this.root = root;
    }

    public static Expression parse(String text, boolean unsafe) throws ExpressionException {
        return new Expression(text, new Parser(text, unsafe).parseAll());
    }

    public Object eval(Env env) throws EvalException {
        return root.eval(env);
    }

    /** OGNL truthiness: null, false, zero and "" are false. */
    public boolean test(Env env) throws EvalException {
        return truthy(eval(env));
    }

    static boolean truthy(Object v) {
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean) {
            return (Boolean) v;
        }
        if (v instanceof Number) {
            return ((Number) v).doubleValue() != 0;
        }
        if (v instanceof CharSequence) {
            return ((CharSequence) v).length() > 0;
        }
        return true;
    }

    @Override
    public String toString() {
        return text;
    }
}
