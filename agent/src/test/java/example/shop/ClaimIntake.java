package example.shop;

import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.SimpleJdbcInsert;

/** Builds a SimpleJdbcInsert per call, which reads the table's columns from the catalog when it first runs. */
public final class ClaimIntake {
    private ClaimIntake() { }

    public static void submit(DataSource ds) {
        new SimpleJdbcInsert(ds).withTableName("claims").execute(Map.of("id", 1));
    }
}
