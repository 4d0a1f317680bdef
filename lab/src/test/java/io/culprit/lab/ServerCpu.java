package io.culprit.lab;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/**
 * CPU time of the in-process server's request threads (Tomcat's {@code http-nio-*} threads), so a
 * test can compare CPU per request between twins in a JVM that also runs the load generator.
 * Unlike throughput, it hardly moves when other processes compete for the cores.
 */
final class ServerCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ServerCpu() {
    }

    /** Total CPU nanoseconds so far of the live Tomcat threads (they are pooled, so they persist across windows). */
    static long nanos() {
        long sum = 0;
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("http-nio-")) {
                sum += Math.max(0, THREADS.getThreadCpuTime(t.getThreadId()));
            }
        }
        return sum;
    }
}
