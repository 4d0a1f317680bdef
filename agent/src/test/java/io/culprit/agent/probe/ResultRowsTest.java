package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-thread row counter alone, with plain objects standing in for result sets. */
class ResultRowsTest {

    private final List<long[]> logged = new ArrayList<>();
    private final ResultRows rows = new ResultRows((index, n) -> logged.add(new long[] {index, n}));

    private void read(Object rs, int n) {
        for (int i = 0; i < n; i++) rows.next(rs, true);
        rows.next(rs, false);
    }

    @Test
    void aResultReadToTheEndIsLoggedWithItsStatement() {
        rows.executed(7);
        read(new Object(), 3);
        assertThat(logged).containsExactly(new long[] {7, 3});
    }

    @Test
    void aWrapperThatCallsTheDriversNextIsNotCountedAgain() {
        Object driver = new Object(), wrapper = new Object();
        rows.executed(2);
        for (int i = 0; i < 4; i++) {
            rows.next(driver, true);  // the driver's next() returns first, inside the wrapper's
            rows.next(wrapper, true);
        }
        rows.next(driver, false);
        rows.next(wrapper, false);
        assertThat(logged).containsExactly(new long[] {2, 4});
    }

    @Test
    void anOuterResultKeepsCountingWhileEachRowRunsStatementsOfItsOwn() {
        Object outerDriver = new Object(), outerWrapper = new Object();
        rows.executed(1);
        for (int row = 0; row < 10; row++) {
            rows.next(outerDriver, true);
            rows.next(outerWrapper, true);
            rows.executed(2);  // a lookup per row, read through its own wrapper
            Object inner = new Object(), innerWrapper = new Object();
            for (int i = 0; i < 3; i++) {
                rows.next(inner, true);
                rows.next(innerWrapper, true);
            }
            rows.next(inner, false);
            rows.next(innerWrapper, false);
            rows.executed(3);  // and an update per row, which returns no result
        }
        rows.next(outerDriver, false);
        rows.next(outerWrapper, false);
        assertThat(logged).filteredOn(e -> e[0] == 2).hasSize(10).allMatch(e -> e[1] == 3);
        assertThat(logged).filteredOn(e -> e[0] == 1).containsExactly(new long[] {1, 10});
        assertThat(logged).noneMatch(e -> e[0] == 3);
    }

    @Test
    void resultsLeftOpenAreLoggedWhenTheirSlotIsNeeded() {
        for (int i = 0; i < ResultRows.SLOTS + 2; i++) {
            rows.executed(i);
            rows.next(new Object(), true);  // `if (rs.next()) return map(rs);` and never read to the end
        }
        assertThat(logged).containsExactly(new long[] {0, 1}, new long[] {1, 1});
    }

    @Test
    void aResultNoStatementArmedIsNotCounted() {
        read(new Object(), 5);  // a metadata query, say
        assertThat(logged).isEmpty();
    }
}
