package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Frames;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Repeated statements that an ORM or Spring Data issues on the application's behalf, each with a
 * cure other than "batch it" or "join it", recognised by the ORM's own frames in the CPU profile.
 * From session 38's blind data-layer service:
 * <ul>
 *   <li>a collection Hibernate removes and recreates on every change (a bag: an
 *       {@code @ElementCollection List} without {@code @OrderColumn}): 401 inserts per request to change
 *       one tag of 400 (19 req/s against 143 with a Set);</li>
 *   <li>a derived {@code deleteBy…} query, which loads the rows and removes them one statement each
 *       (58 against 311 with a bulk {@code @Modifying @Query});</li>
 *   <li>{@code save()} of entities with an assigned id, which Spring Data sends through
 *       {@code merge}, and merge selects each row first (48 against 155 loading the rows once).</li>
 * </ul>
 */
enum OrmRoundTrips {
    BAG_RECREATE("insert", st -> Frames.anyStartsWith(st, "org.hibernate.action.internal.CollectionUpdateAction") && recreates(st),
            "; each change removes the whole collection and inserts every element again: Hibernate recreating"
            + " a collection it cannot change row by row",
            "Hibernate cannot tell the rows of a bag apart (an @ElementCollection or @OneToMany mapped as a List without"
            + " @OrderColumn), so any change to it deletes all of the parent's rows and inserts every element again. Map"
            + " it as a Set (with a primary key over the parent and the value), add @OrderColumn, or make the elements an"
            + " entity of their own; then a change writes only the rows that changed."),
    DERIVED_DELETE("delete", st -> Frames.anyStartsWith(st, "org.springframework.data.jpa.repository.query.JpaQueryExecution$DeleteExecution"),
            "; Spring Data's derived delete query (deleteBy…) loads the rows and removes each with a statement of its own",
            "A derived deleteBy… query is not a bulk delete: Spring Data selects the entities, removes them one by one, and"
            + " Hibernate flushes one DELETE per row. Delete in one statement: @Modifying @Query(\"delete from Entity e where"
            + " e.owner = :owner\") or deleteAllInBatch; it skips the persistence context, cascades and lifecycle callbacks,"
            + " so clear the context after it and delete child rows the same way."),
    MERGE_SELECT("select", st -> Frames.anyStartsWith(st, "org.springframework.data.jpa.repository.support.SimpleJpaRepository.save")
                    && Frames.anyStartsWith(st, "org.hibernate.event.internal.DefaultMergeEventListener"),
            "; each is the SELECT that merge runs to load a detached entity before copying it: Spring Data's save() of"
            + " an entity whose id is already set",
            "Spring Data's save() calls merge for an entity whose id is set (an assigned id, no @Version), and merge selects"
            + " the row before copying the entity over it. Load the rows the request changes in one query (findAllById,"
            + " or a query for the whole set), change the loaded entities and let the flush write only those that changed;"
            + " or implement Persistable.isNew (a transient flag, or @Version) so that save() persists new rows without the"
            + " SELECT, or write them with one batched INSERT ... ON CONFLICT DO UPDATE.");

    /** Samples enough to say the ORM ran that path during the run, not once at start-up. */
    static final long MIN_SAMPLES = 5;

    /** The statement's first word. */
    private final String verb;
    /** A CPU sample on the ORM's path. */
    private final Predicate<String[]> path;
    final String clause;
    final String fix;

    OrmRoundTrips(String verb, Predicate<String[]> path, String clause, String fix) {
        this.verb = verb;
        this.path = path;
        this.clause = clause;
        this.fix = fix;
    }

    /** The ORM path behind a repeated SQL statement, or null (no CPU profile, not SQL, none recognised). */
    static OrmRoundTrips of(Evidence ev, String kind, String target) {
        if (!"sql".equalsIgnoreCase(kind) || target == null) return null;
        CpuProfile p = ev.cpuProfileIfAny().orElse(null);
        if (p == null) return null;
        String statement = target.trim().toLowerCase(Locale.ROOT);
        for (OrmRoundTrips o : values()) {
            if (statement.startsWith(o.verb) && p.only(o.path).samples() >= MIN_SAMPLES) return o;
        }
        return null;
    }

    /** A collection persister's recreate (Hibernate 6's BasicCollectionPersister.recreate, 5's AbstractCollectionPersister.recreate). */
    private static boolean recreates(String[] stack) {
        for (String f : stack) {
            if (f.startsWith("org.hibernate.persister.collection.") && Frames.stripLine(f).endsWith(".recreate")) return true;
        }
        return false;
    }
}
