package io.culprit.report;

import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A 60-second case as large as a real one gets: 1 s windows of every charted series, ranked
 * tables with 30-frame stacks, and four profiles of 6,000 distinct 20-60-frame stacks each (a
 * 60 s CPU profile at 100 Hz on 2 cores is 12,000 samples, fewer distinct stacks). Seeded, so
 * every run measures the same page.
 */
final class SyntheticCase {
    static final long T0 = 1_763_798_400_000L;

    private SyntheticCase() { }

    static CaseFile write(Path dir, int seconds) {
        CaseFile cf = CaseFile.create(dir);
        Random rnd = new Random(42);
        cf.write(CaseInfo.of("fixture", T0, T0 + seconds * 1000L, "synthetic " + seconds + " s case", Map.of("cpus", "2")));
        series(cf, "requests", seconds, rnd, "rps", 800, "p50Ms", 5, "p90Ms", 40, "p99Ms", 300, "maxMs", 900, "errors", 1, "targetRps", 800);
        series(cf, "gc", seconds, rnd, "pauseCount", 2, "pauseSumMs", 40, "pauseMaxMs", 25);
        series(cf, "heap", seconds, rnd, "usedMb", 400, "committedMb", 512, "maxMb", 1024);
        series(cf, "pools", seconds, rnd, "dbActive", 8, "dbPending", 20, "dbTotal", 10, "containerBusy", 120, "containerMax", 200);
        series(cf, "cpu", seconds, rnd, "jvmUser", 0.5, "jvmSystem", 0.05, "machineTotal", 0.6);
        series(cf, "threads", seconds, rnd, "live", 240, "runnable", 6, "blocked", 3);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("type", "com.example.Ex" + i);
            r.put("site", frame(rnd) + ":" + rnd.nextInt(400));
            r.put("count", 10_000 - i * 40);
            r.put("stack", stack(rnd, 30));
            rows.add(r);
        }
        cf.write(new Table("exceptions", List.of("type", "site", "count", "stack"), rows, Map.of("seconds", (double) seconds)));
        for (String kind : List.of("cpu", "wall", "alloc", "lock")) profile(cf.profile(kind + ".collapsed"), rnd, 6_000);
        return cf;
    }

    private static void series(CaseFile cf, String name, int seconds, Random rnd, Object... colsAndLevels) {
        Series.Builder b = Series.builder(name, 1000);
        for (int s = 0; s < seconds; s++) {
            Map<String, Double> row = new LinkedHashMap<>();
            for (int i = 0; i < colsAndLevels.length; i += 2) {
                double level = ((Number) colsAndLevels[i + 1]).doubleValue();
                row.put((String) colsAndLevels[i], level * (0.5 + rnd.nextDouble()));
            }
            b.row(T0 + s * 1000L, row);
        }
        cf.write(b.build());
    }

    private static void profile(Path file, Random rnd, int stacks) {
        try (Writer w = Files.newBufferedWriter(file)) {
            for (int i = 0; i < stacks; i++) {
                w.write(String.join(";", stack(rnd, 20 + rnd.nextInt(40))));
                w.write(" " + (1 + rnd.nextInt(50)) + "\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // Frames from a skewed pool: shallow frames repeat (a real tree's trunk), deep ones scatter.
    private static List<String> stack(Random rnd, int depth) {
        List<String> s = new ArrayList<>();
        for (int d = 0; d < depth; d++) s.add("com.example.pkg" + (d % 7) + ".Class" + rnd.nextInt(1 + d * d) + ".method" + rnd.nextInt(3));
        return s;
    }

    private static String frame(Random rnd) {
        return "com.example.pkg.Class" + rnd.nextInt(100) + ".method";
    }
}
