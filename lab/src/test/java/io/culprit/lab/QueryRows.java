package io.culprit.lab;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Statements and the rows their results returned, from embedded H2's own statistics
 * ({@code INFORMATION_SCHEMA.QUERY_STATISTICS}): what the database handed the application, counted
 * by the database, whatever the code then kept of it. The setting is the database's, so statements
 * of every connection count; the lab's tests run one at a time.
 */
final class QueryRows {

    private QueryRows() {
    }

    record Totals(long statements, long rows) {
    }

    /** The executions and result rows of the statements whose text is like {@code sqlLike}, while {@code work} runs. */
    static Totals during(JdbcTemplate jdbc, String sqlLike, Runnable work) {
        // Switching the statistics off and on again starts them empty.
        jdbc.execute("SET QUERY_STATISTICS FALSE");
        jdbc.execute("SET QUERY_STATISTICS TRUE");
        try {
            work.run();
            // The pattern is a parameter, so this statement's own text does not match it.
            return jdbc.queryForObject("SELECT COALESCE(SUM(EXECUTION_COUNT), 0), COALESCE(SUM(CUMULATIVE_ROW_COUNT), 0)"
                    + " FROM INFORMATION_SCHEMA.QUERY_STATISTICS WHERE SQL_STATEMENT LIKE ?",
                    (rs, i) -> new Totals(rs.getLong(1), rs.getLong(2)), sqlLike);
        } finally {
            jdbc.execute("SET QUERY_STATISTICS FALSE");
        }
    }
}
