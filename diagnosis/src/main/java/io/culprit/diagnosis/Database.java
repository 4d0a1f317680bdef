package io.culprit.diagnosis;

import java.util.List;
import java.util.Locale;

/**
 * The database a service's statements went to, so that advice is written in its dialect: an index
 * needs a name in MySQL and none in PostgreSQL, statistics are refreshed by {@code ANALYZE t} in
 * one and {@code ANALYZE TABLE t} in the other, and lock waits are read from different views. A
 * service outside the lab on MariaDB was told {@code EXPLAIN (ANALYZE, BUFFERS)}, which MariaDB
 * rejects, and the lab on its embedded H2 to run {@code psql}. Known from the product name the
 * driver reported (table {@code calls}, column {@code database}), else from the driver's frames on
 * a blocked statement's stack (table {@code db-waits}); {@link #UNKNOWN} speaks PostgreSQL's
 * dialect and says so.
 */
public enum Database {
    POSTGRESQL("PostgreSQL", "org.postgresql."),
    MARIADB("MariaDB", "org.mariadb.jdbc."),
    MYSQL("MySQL", "com.mysql."),
    H2("H2", "org.h2."),
    ORACLE("Oracle", "oracle.jdbc."),
    SQLSERVER("SQL Server", "com.microsoft.sqlserver."),
    UNKNOWN("PostgreSQL", null);

    /** How advice names the database. */
    public final String label;
    private final String driverPackage;

    Database(String label, String driverPackage) {
        this.label = label;
        this.driverPackage = driverPackage;
    }

    /** The database a driver's product name ({@code DatabaseMetaData.getDatabaseProductName}) names. */
    public static Database ofProduct(String product) {
        if (product == null || product.isBlank()) return UNKNOWN;
        String p = product.toLowerCase(Locale.ROOT);
        if (p.contains("postgres")) return POSTGRESQL;
        if (p.contains("mariadb")) return MARIADB;
        if (p.contains("mysql")) return MYSQL;
        if (p.equals("h2") || p.startsWith("h2 ")) return H2;
        if (p.contains("oracle")) return ORACLE;
        if (p.contains("sql server")) return SQLSERVER;
        return UNKNOWN;
    }

    /** The database whose driver a stack frame belongs to, or UNKNOWN. */
    public static Database ofFrame(String frame) {
        if (frame == null) return UNKNOWN;
        for (Database d : values()) if (d.driverPackage != null && frame.startsWith(d.driverPackage)) return d;
        return UNKNOWN;
    }

    /** The statement that shows {@code sql}'s plan as it ran, in this dialect. */
    public String plan(String sql) {
        return switch (this) {
            case MARIADB -> "ANALYZE FORMAT=JSON " + sql;
            case MYSQL, H2 -> "EXPLAIN ANALYZE " + sql;
            case ORACLE -> "EXPLAIN PLAN FOR " + sql + "; SELECT * FROM TABLE(DBMS_XPLAN.DISPLAY)";
            case SQLSERVER -> "SET STATISTICS PROFILE ON; " + sql;
            default -> "EXPLAIN (ANALYZE, BUFFERS) " + sql;
        };
    }

    /** The plan statement's name in prose ("EXPLAIN ANALYZE"). */
    public String planName() {
        return switch (this) {
            case MARIADB -> "ANALYZE FORMAT=JSON";
            case ORACLE -> "EXPLAIN PLAN";
            case SQLSERVER -> "SET STATISTICS PROFILE";
            default -> "EXPLAIN ANALYZE";
        };
    }

    /** An index on {@code table}'s {@code columns}: named where the dialect needs a name. */
    public String createIndex(String table, List<String> columns) {
        String cols = String.join(", ", columns);
        if (cols.contains("(")) {
            // An expression: MySQL indexes it in its own parentheses; MariaDB, H2 and SQL Server only through a generated column.
            String name = indexName("", columns).substring("idx__".length());
            switch (this) {
                case MYSQL: return "CREATE INDEX " + indexName(table, columns) + " ON " + table + " ((" + String.join("), (", columns) + "))";
                case MARIADB: case H2: case SQLSERVER:
                    // SQL Server's computed column takes its type from the expression; the others name it.
                    return "ALTER TABLE " + table + " ADD " + name + (this == SQLSERVER ? "" : " <the column's type>") + " AS (" + cols + ")"
                            + (this == MARIADB ? " VIRTUAL" : "") + ", then CREATE INDEX "
                            + indexName(table, List.of(name)) + " ON " + table + " (" + name + "), and compare " + name;
                default: break;
            }
        }
        return switch (this) {
            case POSTGRESQL, H2, UNKNOWN -> "CREATE INDEX ON " + table + " (" + cols + ")";
            default -> "CREATE INDEX " + indexName(table, columns) + " ON " + table + " (" + cols + ")";
        };
    }

    /** The statement that refreshes the planner's statistics of {@code table}. */
    public String refreshStatistics(String table) {
        return switch (this) {
            case MARIADB, MYSQL, H2 -> "ANALYZE TABLE " + table;
            case ORACLE -> "EXEC DBMS_STATS.GATHER_TABLE_STATS(USER, '" + table.toUpperCase(Locale.ROOT) + "')";
            case SQLSERVER -> "UPDATE STATISTICS " + table;
            default -> "ANALYZE " + table;
        };
    }

    /**
     * An index that serves {@code expr LIKE '%…%'} (a pattern with a leading wildcard, which no B-tree
     * index can): trigrams on PostgreSQL, full-text indexes elsewhere.
     */
    public String substringIndex(String table, String expr) {
        return switch (this) {
            case MARIADB, MYSQL -> "a FULLTEXT index (ALTER TABLE " + table + " ADD FULLTEXT (" + expr + ")) searched with MATCH … AGAINST";
            case H2 -> "H2's full-text search (CALL FT_CREATE_INDEX('PUBLIC', '" + table.toUpperCase(Locale.ROOT) + "', NULL))";
            case ORACLE -> "an Oracle Text index (CREATE INDEX … ON " + table + " (" + expr + ") INDEXTYPE IS CTXSYS.CONTEXT)";
            case SQLSERVER -> "a full-text index on " + table + " searched with CONTAINS";
            default -> "pg_trgm (CREATE EXTENSION pg_trgm; CREATE INDEX ON " + table + " USING gin (" + expr + " gin_trgm_ops))";
        };
    }

    /** Where the database shows which session waits on which lock, as a command to run. */
    public String lockWaits() {
        return switch (this) {
            case MARIADB -> "MariaDB: SELECT * FROM information_schema.INNODB_LOCK_WAITS (and SHOW ENGINE INNODB STATUS)";
            case MYSQL -> "MySQL: SELECT * FROM performance_schema.data_lock_waits (and SHOW ENGINE INNODB STATUS)";
            case H2 -> "H2, on a connection of the application's database: SELECT SESSION_ID, BLOCKER_ID, EXECUTING_STATEMENT"
                    + " FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
            case ORACLE -> "Oracle: SELECT sid, blocking_session, sql_id, event FROM v$session WHERE blocking_session IS NOT NULL";
            case SQLSERVER -> "SQL Server: SELECT session_id, blocking_session_id, wait_type, wait_time FROM sys.dm_exec_requests"
                    + " WHERE blocking_session_id <> 0";
            default -> "PostgreSQL: SELECT pid, wait_event_type, query FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
        };
    }

    private static String indexName(String table, List<String> columns) {
        String t = table.substring(table.lastIndexOf('.') + 1).replace("\"", "").replace("`", "");
        // An expression (lower(email)) names its index by its words: idx_people_lower_email.
        return ("idx_" + t + "_" + String.join("_", columns)).replaceAll("\\W+", "_").replaceAll("_+$", "");
    }
}
