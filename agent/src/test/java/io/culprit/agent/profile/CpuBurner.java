package io.culprit.agent.profile;

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

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
    }
}
