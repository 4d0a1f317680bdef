package io.culprit.model;

/** Names the case file gives to what a wait was on, shared by the collector that writes them and the rules that read them. */
public final class Targets {
    /**
     * {@code request-waits}' target for file I/O without a path: a stream over a file descriptor,
     * such as a child process's output, or a standard stream.
     */
    public static final String PIPE = "a pipe or standard stream";

    private Targets() { }
}
