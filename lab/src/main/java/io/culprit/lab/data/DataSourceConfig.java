package io.culprit.lab.data;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * HikariCP with a pool of 10 (seed 2's size) over embedded H2 by default, or the local PostgreSQL
 * with {@code --lab.db=postgres}. The pool registers its MXBean so culprit can read pending
 * threads and active connections over JMX like on any production service.
 */
@Configuration
public class DataSourceConfig {

    public static final int POOL_SIZE = 10;

    @Bean(destroyMethod = "close")
    public HikariDataSource dataSource(@Value("${lab.db:h2}") String db, PoolMetrics metrics) {
        HikariConfig c = new HikariConfig();
        c.setPoolName("lab");
        c.setMaximumPoolSize(POOL_SIZE);
        c.setMinimumIdle(POOL_SIZE);
        c.setRegisterMbeans(true);
        c.setConnectionTimeout(30_000);
        switch (db) {
            case "h2" -> {
                // LOCK_TIMEOUT: H2's default of 1 s would turn row-lock queueing into errors.
                c.setJdbcUrl("jdbc:h2:mem:lab;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000");
                c.setUsername("sa");
            }
            case "postgres" -> {
                // A schema of its own so the lab never touches other tables in the shared db.
                c.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=culprit_lab");
                c.setUsername("postgres");
                c.setConnectionInitSql("CREATE SCHEMA IF NOT EXISTS culprit_lab");
            }
            default -> throw new IllegalArgumentException("unknown lab.db '" + db + "'; known: h2, postgres");
        }
        c.setMetricsTrackerFactory(metrics);
        HikariDataSource ds = new HikariDataSource(c);
        metrics.attach(ds);
        return ds;
    }
}
