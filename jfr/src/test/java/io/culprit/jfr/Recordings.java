package io.culprit.jfr;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import jdk.jfr.Recording;

/** Records a workload in this JVM with culprit's settings: the tests' fixtures are made, not stored. */
final class Recordings {
    private Recordings() { }

    interface Workload {
        void run() throws Exception;
    }

    static Path record(Workload workload) throws Exception {
        return record(Map.of(), workload);
    }

    /** The same, with {@code extra} settings over culprit's (the leak profiler, off in culprit.jfc). */
    static Path record(Map<String, String> extra, Workload workload) throws Exception {
        Path out = Files.createTempFile("culprit-test", ".jfr");
        Map<String, String> settings = new HashMap<>(CulpritSettings.settings());
        settings.putAll(extra);
        try (Recording r = new Recording(settings)) {
            r.start();
            workload.run();
            r.stop();
            r.dump(out);
        }
        out.toFile().deleteOnExit();
        return out;
    }

    /** Paces a loop at {@code perSecond} for {@code millis}: schedule-based, so a slow call does not lower the rate. */
    static long paced(int perSecond, long millis, Runnable call) {
        long start = System.nanoTime();
        long period = 1_000_000_000L / perSecond;
        long n = 0;
        while (System.nanoTime() - start < millis * 1_000_000L) {
            long due = start + n * period;
            long wait = due - System.nanoTime();
            if (wait > 0) java.util.concurrent.locks.LockSupport.parkNanos(wait);
            call.run();
            n++;
        }
        return n;
    }
}
