package io.culprit.agent.probe;

import static io.culprit.agent.probe.PoolRows.max;
import static io.culprit.agent.probe.PoolRows.number;
import static io.culprit.agent.probe.PoolRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.agent.instrument.Instrumenter;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.apache.commons.dbcp2.BasicDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pool series for JDBC pools other than HikariCP: Tomcat's, DBCP2's, c3p0's, Druid's and Agroal's, each of two
 * connections over H2, exhausted by two held connections and a third acquire that waits. Before,
 * only HikariCP had pool figures: a service on another pool had no pending, acquire or usage time.
 */
class OtherPoolsProbeTest {

    @AfterEach
    void reset() {
        Instrumenter.resetAll();
        Probes.stop();
    }

    @Test
    void tomcatsPoolIsReadLikeHikaris() throws Exception {
        org.apache.tomcat.jdbc.pool.DataSource tomcat = new org.apache.tomcat.jdbc.pool.DataSource();
        tomcat.setUrl("jdbc:h2:mem:tomcatpool;DB_CLOSE_DELAY=-1");
        tomcat.setDriverClassName("org.h2.Driver");
        tomcat.setMaxActive(2);
        tomcat.setMaxIdle(2);
        tomcat.setInitialSize(2);
        tomcat.setMaxWait(10_000);
        try {
            assertExhaustionIsSeen(tomcat, "tomcat-jdbc");
        } finally {
            tomcat.close();
        }
    }

    @Test
    void dbcp2sPoolIsReadLikeHikaris() throws Exception {
        try (BasicDataSource dbcp = new BasicDataSource()) {
            dbcp.setUrl("jdbc:h2:mem:dbcppool;DB_CLOSE_DELAY=-1");
            dbcp.setMaxTotal(2);
            dbcp.setInitialSize(2);
            dbcp.setMaxWait(Duration.ofSeconds(10));
            assertExhaustionIsSeen(dbcp, "dbcp2");
        }
    }

    @Test
    void c3p0sPoolIsReadLikeHikaris() throws Exception {
        com.mchange.v2.c3p0.ComboPooledDataSource c3p0 = new com.mchange.v2.c3p0.ComboPooledDataSource();
        c3p0.setJdbcUrl("jdbc:h2:mem:c3p0pool;DB_CLOSE_DELAY=-1");
        c3p0.setMaxPoolSize(2);
        c3p0.setMinPoolSize(2);
        c3p0.setInitialPoolSize(2);
        c3p0.setCheckoutTimeout(10_000);
        try {
            assertExhaustionIsSeen(c3p0, "c3p0");
        } finally {
            c3p0.close();
        }
    }

    @Test
    void druidsPoolIsReadLikeHikaris() throws Exception {
        try (com.alibaba.druid.pool.DruidDataSource druid = new com.alibaba.druid.pool.DruidDataSource()) {
            druid.setUrl("jdbc:h2:mem:druidpool;DB_CLOSE_DELAY=-1");
            druid.setMaxActive(2);
            druid.setInitialSize(2);
            druid.setMinIdle(2);
            druid.setMaxWait(10_000);
            assertExhaustionIsSeen(druid, "druid");
        }
    }

    @Test
    void agroalsPoolIsReadLikeHikaris() throws Exception {
        io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier config =
                new io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier()
                        .connectionPoolConfiguration(pool -> pool.maxSize(2).minSize(2).initialSize(2)
                                .acquisitionTimeout(Duration.ofSeconds(10))
                                .connectionFactoryConfiguration(f -> f.jdbcUrl("jdbc:h2:mem:agroalpool;DB_CLOSE_DELAY=-1")));
        try (io.agroal.api.AgroalDataSource agroal = io.agroal.api.AgroalDataSource.from(config)) {
            assertExhaustionIsSeen(agroal, "agroal");
        }
    }

    private static void assertExhaustionIsSeen(DataSource ds, String library) throws Exception {
        SqlWork.warm(ds);
        Probes p = Probes.ensure(ProbeContext.INST);
        Connection a = ds.getConnection();
        Connection b = ds.getConnection();
        CompletableFuture<Connection> third = SqlWork.connectionLater(ds);
        Until.met(() -> number(row(p, library), "pending") == 1.0);
        assertThat(row(p, library)).containsEntry("active", 2.0).containsEntry("total", 2.0);
        Thread.sleep(60);  // the wait and the first lease last this long at least
        a.close();
        Connection c = third.get();
        b.close();
        c.close();
        Until.met(() -> number(row(p, library), "active") == 0.0 && number(row(p, library), "pending") == 0.0);
        // A window saw the waiter, the time it waited, and the connection held for 60 ms.
        Until.met(() -> p.windows.series("pools") != null && max(p, "dbPending") == 1.0 && max(p, "dbUsageMsMax") >= 60);
        assertThat(max(p, "dbAcquireMsMax")).isGreaterThanOrEqualTo(60);
        assertThat(max(p, "dbTotal")).isEqualTo(2.0);
        assertThat(p.pools.connectionPools.rows()).singleElement()
                .satisfies(r -> assertThat(r).containsEntry("library", library).containsEntry("max", 2.0))
                .satisfies(r -> assertThat((String) r.get("pool")).as("a name, not Druid's dump of its connections")
                        .doesNotContain("\n").hasSizeLessThan(80));
        Instrumenter.resetAll();
        try (Connection after = ds.getConnection()) {
            assertThat(after.isValid(1)).isTrue();
        }
        assertThat(p.pools.connectionPools.found()).as("one pool, found before the reset").hasSize(1);
    }
}
