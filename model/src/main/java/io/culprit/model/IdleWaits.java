package io.culprit.model;

import java.util.List;

/**
 * Waits of a pool's thread for its next task: idle, not contended, even when the wait is on a
 * lock or a semaphore. The lock collector drops them; the lock rule skips them in case files
 * recorded before the collector knew a pool's wait.
 */
public final class IdleWaits {
    private IdleWaits() { }

    /**
     * A pool worker fetching its next task waits for work, even on the queue's own lock: Tomcat's
     * idle workers park on LinkedBlockingQueue's take lock in TaskQueue.poll, and while System.gc()
     * stopped the JVM 89 % of the time, 6 s of those parks read as "93 % of request time blocked"
     * and took the verdict from the collections that caused them. Jetty 12's reserved threads wait for
     * their next job on a semaphore ({@code ReservedThread.waitForTask}): a Dropwizard service read
     * 12 % of request time "blocked" on Semaphore$NonfairSync, every second of it an idle thread.
     */
    public static boolean idleWorker(List<String> stack) {
        for (String f : stack) {
            if (f.contains("ThreadPoolExecutor.getTask") || f.contains("ForkJoinPool.awaitWork")
                    || f.startsWith("org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread.waitForTask")
                    || f.startsWith("org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll")) return true;
        }
        return false;
    }
}
