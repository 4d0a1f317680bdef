package io.culprit.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlTextTest {

    @Test
    void literalsBecomePlaceholders() {
        assertThat(SqlText.normalize("select * from t where id = 42 and name = 'o''neil' and x > -1.5"))
                .isEqualTo("select * from t where id = ? and name = ? and x > ?");
        assertThat(SqlText.normalize("select col1, t2.x from t2")).as("digits inside names stay").isEqualTo("select col1, t2.x from t2");
    }

    @Test
    void anInListOfAnyLengthIsOneStatement() {
        String three = SqlText.normalize("select sku from quotes where sku in (?, ?, ?) group by sku");
        String forty = SqlText.normalize("select sku from quotes where sku in (" + "?, ".repeat(39) + "?) group by sku");
        assertThat(three).isEqualTo("select sku from quotes where sku in (?, ...) group by sku").isEqualTo(forty);
        assertThat(SqlText.normalize("SELECT * FROM t WHERE id IN (1,2,3)")).isEqualTo("SELECT * FROM t WHERE id IN (?, ...)");
        assertThat(SqlText.normalize("select * from t where id in (?)")).as("a cart of one line").isEqualTo("select * from t where id in (?, ...)");
        assertThat(SqlText.normalize("select * from t where id in (select id from u where k = ?)")).as("a subquery is no list")
                .isEqualTo("select * from t where id in (select id from u where k = ?)");
    }

    @Test
    void aMultiRowInsertIsItsFirstRow() {
        assertThat(SqlText.normalize("insert into t (a, b) values (?, ?), (?, ?), (?, ?)"))
                .isEqualTo(SqlText.normalize("insert into t (a, b) values (1, 'x'),(2, 'y')"))
                .isEqualTo("insert into t (a, b) values (?, ?), ...");
        assertThat(SqlText.normalize("insert into t (a, b) values (?, ?)")).isEqualTo("insert into t (a, b) values (?, ?)");
    }

    @Test
    void urlsLoseTheirQueryAndNumericSegments() {
        assertThat(SqlText.normalizeUrl("http://h:80/api/orders/42/items?x=1")).isEqualTo("http://h:80/api/orders/{n}/items");
    }
}
