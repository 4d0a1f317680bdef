package io.culprit.agent.profile;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;

/** A thread that burns CPU in one known method until stopped. */
final class CpuBurner implements AutoCloseable {
    static volatile long sink;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread = new Thread(() -> { while (!stop.get()) burnCpu(); }, "cpu-burner");

    CpuBurner() {
        thread.setDaemon(true);
        thread.start();
    }

    static void burnCpu() {
        long x = 0;
        for (int i = 0; i < 5_000_000; i++) x += (x * 31 + i) ^ (x >>> 7);
        sink = x;
    }

    /**
     * Waits until the burner has had {@code cpuMs} more of CPU (at most 20 s): a profiling window
     * measured in the burner's CPU, so that a loaded machine lengthens it rather than thinning it.
     */
    void burnFor(long cpuMs) throws InterruptedException {
        var threads = ManagementFactory.getThreadMXBean();
        long start = threads.getThreadCpuTime(thread.getId()), deadline = System.currentTimeMillis() + 20_000;
        while (threads.getThreadCpuTime(thread.getId()) - start < cpuMs * 1_000_000 && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
    }
}
