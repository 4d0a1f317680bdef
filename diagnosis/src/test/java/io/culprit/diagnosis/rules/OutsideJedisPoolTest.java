package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Fixtures;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import org.junit.jupiter.api.Test;

/**
 * A Spring MVC service written outside the lab (session 25), recorded by {@code culprit diagnose}
 * with 32 connections: a JedisPool of 8 (the default) whose connection each request held across a
 * 60 ms partner call. Before object-pool the verdict was "No root cause found": the borrowers park
 * on the pool's deque through a condition's await, which neither the park tracer nor JFR's
 * settings record, and lock-contention saw 34 ms blocked.
 */
class OutsideJedisPoolTest {

    @Test
    void aJedisConnectionHeldAcrossAPartnerCallIsNamedWithTheCallAndTheBorrower() {
        Finding f = new ObjectPoolRule().evaluate(Fixtures.evidence("outside-jedis-pool-held"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("blind.App.cart");
        assertThat(f.summary()).isEqualTo("requests spent 65 % of their time waiting to borrow from a commons-pool2 pool of"
                + " Redis connections (JedisFactory, maxTotal 8): all 8 lent out in 93 % of 15 windows, 22.3 threads waiting on"
                + " average (most 24), 1,855 borrows waiting 185 ms each on average; borrowed at blind.App.cart, which holds it"
                + " across http \"GET http://127.0.0.1:18121/price\" (1,983 calls, 59.6 ms each).");
        assertThat(f.explanation()).contains("maxWait is unbounded", "not for Redis");
        assertThat(f.fix()).startsWith("Hold each Redis connection only for the calls that need it").contains("JedisPoolConfig.setMaxTotal and setMaxWait", "spring.data.redis.jedis.pool.max-active");
        assertThat(f.explains()).contains("lock-contention", "tail-latency");
        assertThat(f.confirm()).endsWith("\"trace blind.App.cart -n 5\"");
    }

    @Test
    void theConnectionGivenBackBeforeTheCallLeavesNoWait() {
        Finding f = new ObjectPoolRule().evaluate(Fixtures.evidence("outside-jedis-pool-fixed"));
        assertThat(f.severity()).isEqualTo(Severity.OK);
        assertThat(f.summary()).startsWith("requests spent 0 % of their time waiting to borrow from a commons-pool2 pool of Redis connections");
    }

    /**
     * The same fault on DBCP2 (blind12, PostgreSQL, a BasicDataSource of 8 held across a partner
     * call): its pool registers no MBean without a jmxName, so it is found at its first borrow. The
     * agent timed no SQL outside HikariCP then (it times DBCP2's statements since session 26: OutsideDbcpSqlTest),
     * so this recording knows no borrower and the factory is named.
     */
    @Test
    void aDbcpPoolWithoutAnMBeanIsNamedByItsFactoryWithDbcpsSettings() {
        Finding f = new ObjectPoolRule().evaluate(Fixtures.evidence("outside-dbcp-pool-held"));
        assertThat(f.severity()).isEqualTo(Severity.CRITICAL);
        assertThat(f.culprit()).isEqualTo("PoolableConnectionFactory");
        assertThat(f.summary()).startsWith("requests spent 64 % of their time waiting to borrow from a commons-pool2 pool of"
                + " database connections (PoolableConnectionFactory, maxTotal 8): all 8 lent out in 87 % of 15 windows");
        assertThat(f.fix()).startsWith("Hold each connection only for the calls that need it")
                .contains("spring.datasource.dbcp2.max-total");
    }

    @Test
    void aFactoryTypeIsNamedWithoutItsTypeArguments() {
        assertThat(ObjectPoolRule.shortName("redis.clients.jedis.JedisFactory<redis.clients.jedis.Jedis>")).isEqualTo("JedisFactory");
        assertThat(ObjectPoolRule.shortName("")).isEqualTo("factory unknown");
        assertThat(ObjectPoolRule.Kind.of("org.apache.commons.dbcp2.PoolableConnectionFactory<org.apache.commons.dbcp2.PoolableConnection>"))
                .isEqualTo(ObjectPoolRule.Kind.DBCP);
        assertThat(ObjectPoolRule.Kind.of("com.acme.Widgets<com.acme.Widget>")).isEqualTo(ObjectPoolRule.Kind.OTHER);
    }

    @Test
    void aCaseWithoutTheTableIsNotAssessed() {
        Finding f = new ObjectPoolRule().evaluate(Fixtures.evidence("healthy"));
        assertThat(f.verdict().name()).isEqualTo("NOT_ASSESSED");
    }
}
