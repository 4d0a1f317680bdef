package io.culprit.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * A scenario's twins under the same closed load, in alternating windows (faulty, fixed, faulty,
 * fixed, ...) after a warm-up round of both, so a burst of load from elsewhere on the machine lands
 * on both twins rather than on one. Per twin: requests, seconds, and the request threads' CPU time
 * and allocated bytes (Tomcat's {@code http-nio-*} threads; embedded H2 runs on them too).
 */
record TwinWindows(Totals faulty, Totals fixed) {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    record Totals(long requests, double seconds, long cpuNanos, long allocatedBytes) {
        double throughput() {
            return requests / seconds;
        }

        double cpuMsPerRequest() {
            return cpuNanos / 1e6 / requests;
        }

        double kbPerRequest() {
            return allocatedBytes / 1024.0 / requests;
        }

        Totals plus(long r, double s, long cpu, long bytes) {
            return new Totals(requests + r, seconds + s, cpuNanos + cpu, allocatedBytes + bytes);
        }

        @Override
        public String toString() {
            return String.format("%.0f req/s, CPU %.3f ms and %.0f KB allocated per request", throughput(), cpuMsPerRequest(),
                    kbPerRequest());
        }
    }

    /** One warm-up round, then {@code rounds} measured ones; fails on any error answer. */
    static TwinWindows measure(LabMode mode, Scenario scenario, HttpRequest req, int clients, Duration window, int rounds)
            throws InterruptedException {
        Totals[] t = {new Totals(0, 0, 0, 0), new Totals(0, 0, 0, 0)};
        for (int round = 0; round <= rounds; round++) {
            for (int twin = 0; twin < 2; twin++) {
                mode.set(scenario, twin == 1);
                long cpu0 = ServerCpu.nanos();
                long bytes0 = allocatedBytes();
                LabLoad.Result r = LabLoad.closed(req, clients, window);
                long cpu = ServerCpu.nanos() - cpu0;
                long bytes = allocatedBytes() - bytes0;
                assertThat(r.errors()).as("errors in %s's %s twin", scenario.slug(), twin == 1 ? "fixed" : "faulty").isZero();
                if (round > 0) {
                    t[twin] = t[twin].plus(r.requests(), r.seconds(), cpu, bytes);
                }
            }
        }
        return new TwinWindows(t[0], t[1]);
    }

    /** Bytes allocated so far by the live Tomcat threads (pooled, so they persist across windows). */
    static long allocatedBytes() {
        long sum = 0;
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("http-nio-")) {
                sum += Math.max(0, THREADS.getThreadAllocatedBytes(t.getThreadId()));
            }
        }
        return sum;
    }
}
