package example.shop;

import java.util.function.Supplier;
import org.springframework.transaction.annotation.Transactional;

/**
 * A transactional service whose statement runs at its commit, after the method returned, as
 * Hibernate flushes an entity's pending insert (CallSite's test: {@code statementAtCommit} stands
 * in for the flush's JDBC call).
 */
public class OrderDesk {
    public static volatile Supplier<Object> statementAtCommit;
    public static volatile Object seenAtCommit;

    @Transactional
    public void place(String sku) {
        // the entity is only marked for insert here; the INSERT runs at the commit
    }
}
