package io.culprit.cli.it.targets;

/** One thread named "spinner" burns a core; "idler" sleeps; the rest is quiet. */
public final class SpinTarget {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Targets.serve();
        Targets.daemon("spinner", () -> {
            long x = 0;
            while (true) {
                x = x * 31 + System.nanoTime();
                sink = x;
            }
        });
        Targets.daemon("idler", () -> {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        Targets.ready();
    }
}
