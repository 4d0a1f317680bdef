package acme;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * An application's repository, outside culprit's packages, for the tests that check where the call
 * probe says a statement was called from.
 */
public final class OrderLines {
    private final DataSource ds;

    public OrderLines(DataSource ds) {
        this.ds = ds;
    }

    /** One order's lines: one statement per call. */
    public int lines(long orderId) throws SQLException {
        try (Connection con = ds.getConnection(); PreparedStatement ps = con.prepareStatement("SELECT ? + 0 FROM DUAL")) {
            ps.setLong(1, orderId);
            ps.executeQuery().close();
            return 1;
        }
    }

    /** Every order's lines, a loop in the repository's own class around its finder. */
    public int allLines(int orders) throws SQLException {
        int n = 0;
        for (int i = 0; i < orders; i++) n += lines(i);
        return n;
    }
}
