package io.culprit.report.internal;

import io.culprit.report.Report;
import java.util.Optional;

/**
 * Resolves a finding's evidence ref to the element that shows it: {@code series/gc#pauseSumMs}
 * to the chart plotting that column, {@code tables/locks#0} to that row (or its table when the
 * row is not shown), {@code profiles/cpu.collapsed} to the flame graph, {@code load.json} (the load
 * generator's summary) to the per-window table of that run. A ref the case does not
 * hold resolves to nothing and is shown unlinked, so no link ever scrolls nowhere.
 */
public final class Refs {
    private final Report report;

    public Refs(Report report) {
        this.report = report;
    }

    public static String rowId(String table, int row) {
        return "row-" + Html.id(table) + "-" + row;
    }

    public Optional<String> target(String ref) {
        if (ref.startsWith("series/")) return series(ref.substring("series/".length()));
        if (ref.startsWith("tables/")) return table(ref.substring("tables/".length()));
        if (ref.startsWith("profiles/")) {
            String file = ref.substring("profiles/".length());
            String kind = file.contains(".") ? file.substring(0, file.indexOf('.')) : file;
            return report.flames().stream().filter(f -> f.kind().equals(kind)).findFirst().map(f -> "flame-" + Html.id(f.kind()));
        }
        // The load generator's own counts (load.json's summary): the page shows its run per window.
        if (ref.equals("load.json") && report.windows() != null) return Optional.of("windows");
        return Optional.empty();
    }

    private Optional<String> series(String s) {
        int hash = s.indexOf('#');
        String name = hash < 0 ? s : s.substring(0, hash);
        String column = hash < 0 ? "" : s.substring(hash + 1);
        Optional<Report.Chart> exact = column.isEmpty() ? Optional.empty() : report.charts().stream()
                .filter(c -> c.lines().stream().anyMatch(l -> l.ref().equals("series/" + name + "#" + column))).findFirst();
        Optional<Report.Chart> any = exact.isPresent() ? exact : report.charts().stream()
                .filter(c -> c.lines().stream().anyMatch(l -> l.ref().startsWith("series/" + name + "#"))).findFirst();
        return any.map(c -> "chart-" + Html.id(c.id()));
    }

    private Optional<String> table(String s) {
        int hash = s.indexOf('#');
        String name = hash < 0 ? s : s.substring(0, hash);
        Optional<Report.EvidenceTable> t = report.tables().stream().filter(x -> x.name().equals(name)).findFirst();
        if (t.isEmpty()) return Optional.empty();
        if (hash >= 0) {
            try {
                int row = Integer.parseInt(s.substring(hash + 1));
                if (row >= 0 && row < t.get().rows().size()) return Optional.of(rowId(name, row));
            } catch (NumberFormatException e) {
                // a column rather than a row: the table is the target
            }
        }
        return Optional.of("table-" + Html.id(name));
    }
}
