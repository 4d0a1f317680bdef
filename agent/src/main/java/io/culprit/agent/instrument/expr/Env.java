package io.culprit.agent.instrument.expr;

/**
 * What an expression can see about one invocation, under Arthas's names: {@code params},
 * {@code target}, {@code returnObj}, {@code throwExp}, {@code isBefore}, {@code isReturn},
 * {@code isThrow}, {@code clazz}, {@code method}; and the variable {@code #cost} in milliseconds.
 */
public final class Env {
    public Object[] params;
    public Object target;
    public Object returnObj;
    public Throwable throwExp;
    public boolean isBefore;
    public double costMs;
    public Class<?> clazz;
    public String method;

    Object root(String name) throws EvalException {
        switch (name) {
            case "params": return params;
            case "target": return target;
            case "returnObj": return returnObj;
            case "throwExp": return throwExp;
            case "isBefore": return isBefore;
            case "isReturn": return !isBefore && throwExp == null;
            case "isThrow": return throwExp != null;
            case "clazz": return clazz;
            case "method": return method;
            default: throw new EvalException("unknown name '" + name + "' (use params, target, returnObj, throwExp, isBefore, isReturn, isThrow, clazz, method, #cost)");
        }
    }

    Object variable(String name) throws EvalException {
        if ("cost".equals(name)) {
            return costMs;
        }
        throw new EvalException("unknown variable #" + name + " (only #cost, in ms)");
    }
}
