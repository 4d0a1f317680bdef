package io.culprit.model;

/**
 * A thread inside Kotlin's {@code runBlocking}, parked until the coroutine it runs completes (a
 * suspend call's reply, most often). Not contention on a lock: the {@code locks} table gives such
 * parks their own kind, which lock-contention leaves alone. On an event loop's thread (a Ktor
 * handler's) it holds the loop for the whole call, which event-loop-blocking reads. A blind Ktor
 * service (session 46) that wrapped a 25 ms partner call in runBlocking on its call threads read
 * "no root cause" while these parks were dropped.
 */
public final class RunBlocking {
    /** The kind of the {@code locks} rows of these parks. */
    public static final String KIND = "run-blocking";

    private RunBlocking() { }

    /** Whether a park on an instance of {@code blockerClass} is runBlocking's wait for its coroutine. */
    public static boolean isBlocker(String blockerClass) {
        return "kotlinx.coroutines.BlockingCoroutine".equals(blockerClass);
    }
}
