package io.culprit.diagnosis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.culprit.diagnosis.Diagnosis;
import io.culprit.diagnosis.Fixtures;
import io.culprit.model.CaseFile;
import io.culprit.model.Finding;
import org.junit.jupiter.api.Test;

/**
 * Session 38's blind data-layer service: statements Hibernate and Spring Data issue for the
 * application, each with a cure of its own. Before, the repeated ones read "batch the writes" or
 * "join the rows", the cartesian product of two collection joins read "a large reply", the ignored
 * lazy column read "no root cause", and a converter's ObjectMapper per row read "the ORM's CPU".
 */
class OutsideOrmPathsTest {

    private static Diagnosis.Result run(String fixture) {
        return Diagnosis.run(CaseFile.open(Fixtures.dir(fixture)));
    }

    @Test
    void twoCollectionsJoinedToOneParentAreACartesianProduct() {
        Finding f = run("outside-entity-graph-two-collections").top().orElseThrow();
        assertThat(f.summary()).contains("it joins b38a_product_image and b38a_review to its main table's id, each a collection"
                + " of its rows, so their rows multiply (a cartesian product)");
        assertThat(f.fix()).startsWith("Fetch one collection per query");
        assertThat(CallShape.collectionJoins("select p.id from product p left join image i on p.id=i.product_id where p.id=?")).isNull();
        assertThat(CallShape.collectionJoins("select o.id from orders o join customer c on c.id=o.customer_id"
                + " join region r on r.id=o.region_id")).as("joins to parents, not collections").isNull();
    }

    @Test
    void aBagRecreatedOnEveryChangeIsNamedWithItsMapping() {
        Finding f = run("outside-element-collection-bag").top().orElseThrow();
        assertThat(f.summary()).contains("each change removes the whole collection and inserts every element again");
        assertThat(f.fix()).startsWith("Hibernate cannot tell the rows of a bag apart").contains("Map it as a Set");
    }

    @Test
    void saveOfEntitiesWithAssignedIdsIsMergesSelect() {
        Finding f = run("outside-save-assigned-id-merge").top().orElseThrow();
        assertThat(f.summary()).contains("each is the SELECT that merge runs to load a detached entity");
        assertThat(f.fix()).contains("Persistable.isNew");
    }

    @Test
    void aDerivedDeleteIsToldToBeABulkDelete() {
        Finding f = run("outside-derived-delete").top().orElseThrow();
        assertThat(f.summary()).contains("Spring Data's derived delete query (deleteBy…) loads the rows and removes each");
        assertThat(f.fix()).startsWith("A derived deleteBy… query is not a bulk delete").contains("@Modifying @Query");
        assertThat(run("outside-redis-get-per-line").top().orElseThrow().fix()).startsWith("Fetch the keys in one round trip");
    }

    @Test
    void aConvertersMapperPerRowIsTheCauseAndNotTheOrmsCpu() {
        Diagnosis.Result r = run("outside-converter-mapper-per-row");
        assertThat(r.top().orElseThrow().id()).isEqualTo("repeated-construction");
        assertThat(r.finding("orm-cpu").orElseThrow().isProblem()).as("the converter's work is not the ORM's").isFalse();
    }

    @Test
    void aStatementWithLargeRepliesHoldingARequestsTimeIsNamed() {
        Finding f = run("outside-lazy-basic-ignored").top().orElseThrow();
        assertThat(f.id()).isEqualTo("slow-calls");
        assertThat(f.summary()).startsWith("requests spend 40 % of their time in sql").contains("each reply is large")
                .doesNotContain("the service is as fast as this dependency").doesNotContain("0 % more waiting");
        assertThat(f.fix()).contains("Hibernate ignores @Basic(fetch = LAZY) without bytecode enhancement");
    }
}
