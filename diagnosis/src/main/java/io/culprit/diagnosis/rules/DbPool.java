package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Which JDBC pool series {@code pools}' {@code db*} columns read (table {@code db-pools}), so that
 * a finding's commands and settings are that pool's own. A case file without the table read
 * HikariCP, the only pool format 1 recorded.
 */
enum DbPool {
    HIKARI("hikari", "com.zaxxer.hikari.pool.HikariPool getConnection",
            "set HikariCP's leakDetectionThreshold (Spring Boot: spring.datasource.hikari.leak-detection-threshold=2000):"
            + " it logs the stack that took each connection held longer"),
    TOMCAT("tomcat-jdbc", "org.apache.tomcat.jdbc.pool.ConnectionPool getConnection",
            "set the pool's logAbandoned=true with removeAbandoned=true and a removeAbandonedTimeout in seconds"
            + " (Spring Boot: spring.datasource.tomcat.log-abandoned=true, ...remove-abandoned=true): it logs the stack"
            + " that took each connection it reclaims"),
    DBCP2("dbcp2", "org.apache.commons.dbcp2.PoolingDataSource getConnection",
            "set the pool's logAbandoned=true with removeAbandonedOnBorrow=true and a removeAbandonedTimeout"
            + " (Spring Boot: spring.datasource.dbcp2.log-abandoned=true, ...remove-abandoned-on-borrow=true): it logs"
            + " the stack that took each connection it reclaims"),
    C3P0("c3p0", "com.mchange.v2.c3p0.impl.AbstractPoolBackedDataSource getConnection",
            "set c3p0's unreturnedConnectionTimeout (seconds) with debugUnreturnedConnectionStackTraces=true: it logs"
            + " the stack that checked out each connection it reclaims"),
    DRUID("druid", "com.alibaba.druid.pool.DruidDataSource getConnectionDirect",
            "set Druid's removeAbandoned=true, removeAbandonedTimeout (seconds) and logAbandoned=true"
            + " (spring.datasource.druid.*): it logs the stack that took each connection it reclaims");

    final String library;
    /** Class and method of the pool's acquire, for culprit's monitor, watch and stack. */
    final String acquire;
    /** How the pool's own leak detection is switched on, and what it gives. */
    final String leakDetection;

    DbPool(String library, String acquire, String leakDetection) {
        this.library = library;
        this.acquire = acquire;
        this.leakDetection = leakDetection;
    }

    /** The pool of this case: the first of table db-pools, HikariCP without it. */
    static DbPool of(Evidence ev) {
        Optional<Table> t = ev.table("db-pools");
        if (t.isEmpty() || t.get().isEmpty()) return HIKARI;
        String library = t.get().text(0, "library");
        for (DbPool p : values()) if (p.library.equals(library)) return p;
        return HIKARI;
    }
}
