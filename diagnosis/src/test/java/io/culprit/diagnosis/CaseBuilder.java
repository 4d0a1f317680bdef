package io.culprit.diagnosis;

import io.culprit.model.CaseFile;
import io.culprit.model.CaseInfo;
import io.culprit.model.Series;
import io.culprit.model.Table;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small in-memory case files for rule tests: the negative and missing-evidence cases. */
public final class CaseBuilder {
    public static final long T0 = 1_763_798_400_000L;
    private final CaseFile cf;
    private final int seconds;
    private final Map<String, String> target = new LinkedHashMap<>();

    private CaseBuilder(Path dir, int seconds, int cpus) {
        cf = CaseFile.create(dir);
        this.seconds = seconds;
        target.put("pid", "42");
        target.put("cpus", String.valueOf(cpus));
        cf.write(CaseInfo.of("fixture", T0, T0 + seconds * 1000L, "test", target));
    }

    /** A fact about the target or its host in case.json ({@code target.hostReclaim}, {@code target.jvmArgs}). */
    public CaseBuilder target(String key, String value) {
        target.put(key, value);
        cf.write(CaseInfo.of("fixture", T0, T0 + seconds * 1000L, "test", target));
        return this;
    }

    public static CaseBuilder in(Path dir, int seconds, int cpus) {
        return new CaseBuilder(dir, seconds, cpus);
    }

    /** A series whose columns are given as name, values, name, values, ... */
    public CaseBuilder series(String name, long intervalMs, Object... columnsAndValues) {
        Map<String, double[]> cols = new LinkedHashMap<>();
        int n = 0;
        for (int i = 0; i < columnsAndValues.length; i += 2) {
            double[] v = (double[]) columnsAndValues[i + 1];
            cols.put((String) columnsAndValues[i], v);
            n = v.length;
        }
        List<Long> t = new ArrayList<>();
        for (int i = 0; i < n; i++) t.add(T0 + i * intervalMs);
        cf.write(new Series(name, intervalMs, t, cols, Map.of()));
        return this;
    }

    @SafeVarargs
    public final CaseBuilder table(String name, Map<String, Object>... rows) {
        cf.write(new Table(name, List.of(), Arrays.asList(rows), Map.of()));
        return this;
    }

    @SafeVarargs
    public final CaseBuilder tableWithMeta(String name, Map<String, Object> meta, Map<String, Object>... rows) {
        cf.write(new Table(name, List.of(), Arrays.asList(rows), meta));
        return this;
    }

    /** A file of the case directory as written by other tools ({@code load.json}, {@code profiles/cpu.collapsed}). */
    public CaseBuilder file(String relative, String content) {
        try {
            java.nio.file.Path p = cf.dir().resolve(relative);
            java.nio.file.Files.createDirectories(p.getParent());
            java.nio.file.Files.writeString(p, content);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return this;
    }

    /** A {@code load.json} (format culprit-load 1) whose top level holds {@code fields}, e.g. {@code "plan":{"model":"closed"}}. */
    public CaseBuilder loadJson(String fields) {
        return file("load.json", "{\"format\":\"culprit-load\",\"version\":1," + fields + ",\"windows\":[]}");
    }

    public Evidence evidence() {
        return new Evidence(cf);
    }

    public CaseFile caseFile() {
        return cf;
    }

    /** n copies of v. */
    public static double[] flat(int n, double v) {
        double[] a = new double[n];
        Arrays.fill(a, v);
        return a;
    }

    /** n/2 windows at a, then n/2 at b: a state change half-way. */
    public static double[] step(int n, double a, double b) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) v[i] = i < n / 2 ? a : b;
        return v;
    }

    public static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }
}
