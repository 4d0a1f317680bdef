package io.culprit.load;

/**
 * Callbacks from a running {@link LoadEngine}, on the engine's own thread (never an I/O thread), so
 * implementations may block briefly. Diagnose uses {@link #onWindow} to line windows up with its
 * other series by {@link WindowStats#startEpochMs()}.
 */
public interface LoadListener {

    /** About once a second, including during warmup. */
    default void onProgress(Progress progress) {
    }

    /** Once per closed window, in order; the last window may be shorter and includes the drain. */
    default void onWindow(WindowStats window) {
    }

    LoadListener NONE = new LoadListener() {
    };
}
