package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CallShapeTest {

    @Test
    void aSlowSelectIsReadFromItsPlanWithTheTableAndTheColumnsItFiltersOn() {
        assertThat(CallShape.fix("sql", "select count(*) from people where email = ?"))
                .contains("a sequential scan of people", "CREATE INDEX ON people (email)", "ANALYZE people");
        assertThat(CallShape.fix("sql", "select o.id, o.total from orders o where o.customer_id = ? and o.created_at > ? order by o.id"))
                .contains("CREATE INDEX ON orders (customer_id, created_at)");
        assertThat(CallShape.fix("sql", "SELECT * FROM audit_log")).contains("without a WHERE clause on audit_log it reads the whole table");
        assertThat(CallShape.databaseConfirm("sql", "select count(*) from people where email = ?"))
                .isEqualTo("in the database: EXPLAIN (ANALYZE, BUFFERS) select count(*) from people where email = ? with real values");
        // Writes have their own rule (db-row-lock); nothing is guessed for them here.
        assertThat(CallShape.fix("sql", "update stock set qty = ? where sku = ?")).isNull();
        assertThat(CallShape.databaseConfirm("sql", "update stock set qty = ? where sku = ?")).isNull();
    }

    @Test
    void redisCommandsThatWalkEverythingGetTheirOwnCure() {
        assertThat(CallShape.fix("redis", "KEYS")).startsWith("KEYS walks the whole keyspace").contains("SCAN");
        assertThat(CallShape.fix("redis", "hgetall")).startsWith("HGETALL returns the whole collection").contains("HSCAN");
        assertThat(CallShape.fix("redis", "DEL")).contains("UNLINK");
        assertThat(CallShape.fix("redis", "GET")).isNull();
        assertThat(CallShape.fix("http", "GET http://127.0.0.1:8080/x")).isNull();
        assertThat(CallShape.fix("dns", "lookup orders.internal")).startsWith("Resolve the name once").contains("networkaddress.cache.ttl");
    }
}
