package io.culprit.load;

/** Bad input or an unusable target: its message is the one-line error the user sees. */
public final class LoadException extends RuntimeException {
    public LoadException(String message) {
        super(message, null, false, false);
    }
}
