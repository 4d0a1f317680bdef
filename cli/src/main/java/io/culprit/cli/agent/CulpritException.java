package io.culprit.cli.agent;

/** A failure the user caused or must act on: its message is the one line they see. */
public final class CulpritException extends RuntimeException {
    private final int exitCode;

    public CulpritException(String message) {
        this(message, 1);
    }

    public CulpritException(String message, int exitCode) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
