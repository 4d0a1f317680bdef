package io.culprit.jfr;

/**
 * A target for recordings made outside culprit: allocates ~200 MB/s for the given seconds and
 * swallows a ClassNotFoundException on every step (100/s), then exits.
 */
public final class AllocatingTarget {
    static volatile Object sink;

    public static void main(String[] args) {
        long millis = Long.parseLong(args.length > 0 ? args[0] : "2") * 1000;
        long calls = Recordings.paced(100, millis, () -> {
            for (int i = 0; i < 2 * 1024; i++) sink = new byte[1024 - 16];
            probeOptionalModule();
        });
        System.out.println("calls=" + calls);
    }

    static void probeOptionalModule() {
        try {
            Class.forName("com.example.OptionalModule");
        } catch (ClassNotFoundException absent) {
            // swallowed, as framework code probing optional dependencies does
        }
    }
}
