package io.culprit.agent.instrument.expr;

/** A malformed or refused expression; the message names the position (0-based column). */
public final class ExpressionException extends Exception {
    public ExpressionException(String message) {
        super(message, null, false, false);
    }
}
