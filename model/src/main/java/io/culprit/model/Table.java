package io.culprit.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A ranked table of one evidence kind (exceptions by type and site, locks by class and owner,
 * slow calls, bean creations, ...). Rows are maps from column name to a string, number, boolean
 * or list of strings (a stack). Stored as {@code tables/<name>.json}; see docs/CASEFILE.md.
 */
public final class Table {
    private final String name;
    private final List<String> columns;
    private final List<Map<String, Object>> rows;
    private final Map<String, Object> meta;

    @JsonCreator
    public Table(@JsonProperty("name") String name,
                 @JsonProperty("columns") List<String> columns,
                 @JsonProperty("rows") List<Map<String, Object>> rows,
                 @JsonProperty("meta") Map<String, Object> meta) {
        this.name = name;
        this.columns = List.copyOf(columns == null ? List.of() : columns);
        List<Map<String, Object>> copy = new ArrayList<>();
        if (rows != null) for (Map<String, Object> r : rows) copy.add(Collections.unmodifiableMap(new LinkedHashMap<>(r)));
        this.rows = Collections.unmodifiableList(copy);
        this.meta = Collections.unmodifiableMap(new LinkedHashMap<>(meta == null ? Map.of() : meta));
    }

    public Table(String name, List<String> columns, List<Map<String, Object>> rows) {
        this(name, columns, rows, Map.of());
    }

    @JsonProperty public String name() { return name; }
    @JsonProperty public List<String> columns() { return columns; }
    @JsonProperty public List<Map<String, Object>> rows() { return rows; }
    /** Facts about the whole table, e.g. the observation window in seconds or request count. */
    @JsonProperty public Map<String, Object> meta() { return meta; }

    public boolean isEmpty() { return rows.isEmpty(); }

    public double number(int row, String column) {
        Object v = rows.get(row).get(column);
        return v instanceof Number ? ((Number) v).doubleValue() : Double.NaN;
    }

    public String text(int row, String column) {
        Object v = rows.get(row).get(column);
        return v == null ? null : String.valueOf(v);
    }
}
