package io.culprit.cli.it.targets;

/** Thread "allocator" produces short-lived garbage so young collections keep happening. */
public final class AllocTarget {
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        Targets.serve();
        Targets.daemon("allocator", () -> {
            while (true) {
                sink = new byte[64 * 1024];
                if (Thread.interrupted()) return;
            }
        });
        Targets.ready();
    }
}
