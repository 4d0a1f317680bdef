package io.culprit.agent.instrument.expr;

/** An expression failed on one invocation's values (null dereference, no such property...). */
public final class EvalException extends Exception {
    public EvalException(String message) {
        super(message, null, false, false);
    }
}
