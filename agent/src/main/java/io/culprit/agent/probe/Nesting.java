package io.culprit.agent.probe;

/**
 * Per thread, how deep it is in a hooked call that can run inside itself (a pool's statement
 * around the driver's, Spring's request around the HTTP client's): only the outermost counts.
 * A call already running when its hook was woven (or renewed) has no entry: its exit finds 0.
 */
final class Nesting {
    private final PerThread depth = new PerThread(() -> new int[1]);

    void enter() {
        ((int[]) depth.get())[0]++;
    }

    /** Leaves one level; true when it was the outermost. */
    boolean exit() {
        int[] d = (int[]) depth.get();
        if (d[0] > 0) d[0]--;
        return d[0] == 0;
    }

    /** Whether this thread is inside such a call now. */
    boolean inside() {
        return ((int[]) depth.get())[0] > 0;
    }
}
