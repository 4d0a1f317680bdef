package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Database;
import org.junit.jupiter.api.Test;

class CallShapeTest {

    @Test
    void aSlowSelectIsReadFromItsPlanWithTheTableAndTheColumnsItFiltersOn() {
        assertThat(CallShape.fix("sql", "select count(*) from people where email = ?", Database.POSTGRESQL))
                .contains("a full scan of people", "CREATE INDEX ON people (email)", "ANALYZE people");
        assertThat(CallShape.fix("sql", "select o.id, o.total from orders o where o.customer_id = ? and o.created_at > ? order by o.id", Database.UNKNOWN))
                .contains("CREATE INDEX ON orders (customer_id, created_at)");
        assertThat(CallShape.fix("sql", "SELECT * FROM audit_log", Database.UNKNOWN)).contains("without a WHERE clause on audit_log it reads the whole table");
        assertThat(CallShape.databaseConfirm("sql", "select count(*) from people where email = ?", Database.UNKNOWN))
                .isEqualTo("in the database: EXPLAIN (ANALYZE, BUFFERS) select count(*) from people where email = ? with real values");
        // Writes have their own rule (db-row-lock); nothing is guessed for them here.
        assertThat(CallShape.fix("sql", "update stock set qty = ? where sku = ?", Database.MARIADB)).isNull();
        assertThat(CallShape.databaseConfirm("sql", "update stock set qty = ? where sku = ?", Database.MARIADB)).isNull();
    }

    /** A service on MariaDB was told EXPLAIN (ANALYZE, BUFFERS), which MariaDB rejects, and an unnamed index, which it needs named. */
    /** Found outside the lab (session 30): "where lower(email) like ?" read as a statement without a WHERE clause. */
    @Test
    void aFunctionOnTheFilteredColumnAsksForAnIndexOnTheExpression() {
        String sql = "select id, email from people where lower(email) like ? limit ?";
        assertThat(CallShape.fix("sql", sql, Database.POSTGRESQL))
                .contains("applies a function to the column (lower(email))", "CREATE INDEX ON people (lower(email))",
                        "starts with %", "pg_trgm (CREATE EXTENSION pg_trgm; CREATE INDEX ON people USING gin (lower(email) gin_trgm_ops))")
                .doesNotContain("without a WHERE clause");
        assertThat(CallShape.fix("sql", sql, Database.MYSQL)).contains("CREATE INDEX idx_people_lower_email ON people ((lower(email)))");
        assertThat(CallShape.fix("sql", sql, Database.MARIADB)).contains("ALTER TABLE people ADD lower_email <the column's type> AS (lower(email)) VIRTUAL, then CREATE INDEX idx_people_lower_email ON people (lower_email)",
                "FULLTEXT");
        assertThat(CallShape.fix("sql", "select id from people where email like ?", Database.POSTGRESQL))
                .contains("CREATE INDEX ON people (email)", "starts with %");
        assertThat(CallShape.fix("sql", "select id from people where email = ?", Database.POSTGRESQL)).doesNotContain("starts with %");
    }

    @Test
    void offsetPagingIsAnsweredWithKeysetPagination() {
        assertThat(CallShape.fix("sql", "select id, name from people order by name limit ? offset ?", Database.POSTGRESQL))
                .startsWith("It pages with OFFSET").contains("after sorting people by name",
                        "WHERE name > the last value of the previous page ORDER BY name LIMIT n", "CREATE INDEX ON people (name)");
        assertThat(CallShape.fix("sql", "select id from tz where offset = ?", Database.POSTGRESQL)).doesNotContain("OFFSET");
    }

    @Test
    void theAdviceSpeaksTheDatabasesDialect() {
        String sql = "select owner, balance from accounts where owner_id = ?";
        assertThat(CallShape.fix("sql", sql, Database.MARIADB)).contains("(ANALYZE FORMAT=JSON)",
                "CREATE INDEX idx_accounts_owner_id ON accounts (owner_id)", "ANALYZE TABLE accounts");
        assertThat(CallShape.databaseConfirm("sql", sql, Database.MARIADB)).isEqualTo("in MariaDB: ANALYZE FORMAT=JSON " + sql + " with real values");
        assertThat(CallShape.fix("sql", sql, Database.MYSQL)).contains("(EXPLAIN ANALYZE)", "CREATE INDEX idx_accounts_owner_id ON accounts");
        assertThat(CallShape.fix("sql", sql, Database.H2)).contains("CREATE INDEX ON accounts (owner_id)", "ANALYZE TABLE accounts");
        assertThat(CallShape.fix("sql", sql, Database.SQLSERVER)).contains("UPDATE STATISTICS accounts");
        assertThat(CallShape.databaseConfirm("sql", sql, Database.POSTGRESQL)).startsWith("in PostgreSQL: EXPLAIN (ANALYZE, BUFFERS) select");
    }

    @Test
    void redisCommandsThatWalkEverythingGetTheirOwnCure() {
        assertThat(CallShape.fix("redis", "KEYS", Database.UNKNOWN)).startsWith("KEYS walks the whole keyspace").contains("SCAN");
        assertThat(CallShape.fix("redis", "hgetall", Database.UNKNOWN)).startsWith("HGETALL returns the whole collection").contains("HSCAN");
        assertThat(CallShape.fix("redis", "DEL", Database.UNKNOWN)).contains("UNLINK");
        assertThat(CallShape.fix("redis", "GET", Database.UNKNOWN)).isNull();
        assertThat(CallShape.fix("http", "GET http://127.0.0.1:8080/x", Database.UNKNOWN)).isNull();
        assertThat(CallShape.fix("dns", "lookup orders.internal", Database.UNKNOWN)).startsWith("Resolve the name once").contains("networkaddress.cache.ttl");
    }

    private static final String PARCELS = "select `p`.`tracking_code`, `l`.`city` from `parcels` as `p` join `lockers` as `l`"
            + " on `l`.`id` = `p`.`locker_id` where `p`.`recipient_phone` = ? order by `p`.`created_at` desc fetch next ? rows only";

    @Test
    void aTextNamedColumnBoundAsANumberOnMariaDbIsTheConversionThatDefeatsItsIndex() {
        String fix = CallShape.numberOnText(PARCELS, "number,number", Database.MARIADB);
        assertThat(fix).startsWith("Parameter 1, compared with recipient_phone, is bound as a number")
                .contains("MariaDB compares the two as numbers").contains("field(name(\"recipient_phone\"), String.class)");
        // bound as a string, as the fixed service binds it: nothing to say
        assertThat(CallShape.numberOnText(PARCELS, "string,number", Database.MARIADB)).isNull();
        // PostgreSQL refuses the comparison instead of converting
        assertThat(CallShape.numberOnText(PARCELS, "number,number", Database.POSTGRESQL)).isNull();
        // an id bound as a number is what ids are
        assertThat(CallShape.numberOnText("select name from lockers where id = ?", "number", Database.MYSQL)).isNull();
        assertThat(CallShape.numberOnText(PARCELS, null, Database.MARIADB)).isNull();
    }

    @Test
    void parametersAfterACollapsedInListDoNotLineUp() {
        String sql = "select * from parcels where locker_id in (?, ...) and tracking_code = ?";
        assertThat(CallShape.numberOnText(sql, "number,number,number", Database.MARIADB)).isNull();
        assertThat(CallShape.numberOnText("select * from parcels where tracking_code = ? and locker_id in (?, ...)", "number,number",
                Database.MARIADB)).startsWith("Parameter 1, compared with tracking_code");
    }

    @Test
    void mysqlsQuotedNamesAreReadAsNames() {
        assertThat(CallShape.fix("sql", PARCELS, Database.MARIADB)).contains("a full scan of parcels")
                .contains("recipient_phone");
    }
}
