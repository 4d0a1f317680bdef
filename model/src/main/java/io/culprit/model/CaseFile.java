package io.culprit.model;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A case file: the directory of recorded evidence that is the seam between collecting and
 * diagnosing. Rules read only this. Layout and catalogue: docs/CASEFILE.md.
 */
public final class CaseFile {
    /** 2: series pools' connection-pool columns are {@code db*} for every JDBC pool (1: {@code hikari*}). */
    public static final int FORMAT_VERSION = 2;

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final Path dir;

    private CaseFile(Path dir) {
        this.dir = dir;
    }

    /** Creates (or reuses) the directory and its sub-folders. */
    public static CaseFile create(Path dir) {
        try {
            Files.createDirectories(dir.resolve("series"));
            Files.createDirectories(dir.resolve("tables"));
            Files.createDirectories(dir.resolve("profiles"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create case file " + dir + ": " + e.getMessage(), e);
        }
        return new CaseFile(dir);
    }

    /** Opens an existing case file, refusing one written by a newer format. */
    public static CaseFile open(Path dir) {
        CaseFile cf = new CaseFile(dir);
        if (!Files.isRegularFile(dir.resolve("case.json"))) {
            throw new IllegalArgumentException("not a case file (no case.json): " + dir);
        }
        int v = cf.info().formatVersion();
        if (v > FORMAT_VERSION) {
            throw new IllegalArgumentException("case file " + dir + " has format " + v + ", this culprit reads up to " + FORMAT_VERSION);
        }
        return cf;
    }

    public Path dir() { return dir; }

    public void write(CaseInfo info) { writeJson(dir.resolve("case.json"), info); }

    public CaseInfo info() { return readJson(dir.resolve("case.json"), CaseInfo.class); }

    public void write(Series s) { writeJson(dir.resolve("series").resolve(s.name() + ".json"), s); }

    public Optional<Series> series(String name) {
        Path p = dir.resolve("series").resolve(name + ".json");
        if (!Files.isRegularFile(p)) return Optional.empty();
        Series s = readJson(p, Series.class);
        return Optional.of("pools".equals(name) && info().formatVersion() < 2 ? dbColumns(s) : s);
    }

    /**
     * Format 1's pools series named its connection-pool columns after HikariCP, the one pool it
     * read: {@code hikariPending} is format 2's {@code dbPending}, with the same meaning and unit.
     */
    private static Series dbColumns(Series s) {
        Map<String, double[]> columns = new LinkedHashMap<>();
        s.columns().forEach((k, v) -> columns.put(v1Column(k), v));
        Map<String, String> units = new LinkedHashMap<>();
        s.units().forEach((k, v) -> units.put(v1Column(k), v));
        return new Series(s.name(), s.intervalMs(), s.t(), columns, units);
    }

    private static String v1Column(String column) {
        return column.startsWith("hikari") ? "db" + column.substring("hikari".length()) : column;
    }

    public void write(Table t) { writeJson(dir.resolve("tables").resolve(t.name() + ".json"), t); }

    public Optional<Table> table(String name) {
        Path p = dir.resolve("tables").resolve(name + ".json");
        return Files.isRegularFile(p) ? Optional.of(readJson(p, Table.class)) : Optional.empty();
    }

    public List<String> seriesNames() { return names("series"); }

    public List<String> tableNames() { return names("tables"); }

    public void writeFindings(List<Finding> findings) { writeJson(dir.resolve("findings.json"), findings); }

    public List<Finding> findings() {
        Path p = dir.resolve("findings.json");
        if (!Files.isRegularFile(p)) return List.of();
        try {
            return JSON.readValue(p.toFile(), new TypeReference<List<Finding>>() { });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p + ": " + e.getMessage(), e);
        }
    }

    /** Where a profile or recording of this case lives, e.g. {@code profiles/cpu.jfr}. */
    public Path profile(String fileName) { return dir.resolve("profiles").resolve(fileName); }

    /** The shared mapper, configured for the case-file format. */
    public static ObjectMapper json() { return JSON; }

    private List<String> names(String folder) {
        Path d = dir.resolve(folder);
        if (!Files.isDirectory(d)) return List.of();
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(d)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - 5)).sorted().forEach(out::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    // Written to a sibling temp file and moved, so a reader never sees half a file.
    private static void writeJson(Path p, Object value) {
        try {
            Files.createDirectories(p.getParent());
            Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
            JSON.writeValue(tmp.toFile(), value);
            Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + p + ": " + e.getMessage(), e);
        }
    }

    private static <T> T readJson(Path p, Class<T> type) {
        try {
            return JSON.readValue(p.toFile(), type);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p + ": " + e.getMessage(), e);
        }
    }
}
