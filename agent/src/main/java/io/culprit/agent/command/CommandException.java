package io.culprit.agent.command;

/** Bad input or a refused request: its message is the one line the user sees. */
public final class CommandException extends Exception {
    public CommandException(String message) {
        super(message, null, false, false);
    }
}
