package io.culprit.agent.instrument.expr;

/** A parsed expression: evaluated on the application thread that made the call. */
@FunctionalInterface
public interface Node {
    Object eval(Env env) throws EvalException;
}
