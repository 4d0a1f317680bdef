package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.CpuProfile;
import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.Map;
import java.util.Optional;

/**
 * CPU the ORM spends on the service's own cores: Hibernate building entities from result sets,
 * dirty-checking every managed entity at flush, and compiling queries. None of it is in a
 * statement's time (the driver has returned the rows), so slow-calls and chatty-calls see a
 * quick query, and cpu-hotspot sees no application method computing. A service outside the lab
 * that loaded 2,500 entities per request to sum one column read "no root cause found" with 41 % of
 * its CPU in Hibernate. Time in the JDBC driver below Hibernate is the database round trip, not the
 * ORM's, and is left out. MyBatis maps rows to objects the same way (reflection and a type
 * handler per column): a service that fetched 750 rows per request through a mapper to average
 * one column in Java spent 21 % of its CPU in MyBatis's result handling, and read db-row-lock
 * (MyBatis runs its selects through {@code execute()}).
 */
public final class OrmCpuRule implements Rule {
    static final double SHARE_WARN = 0.15;
    static final double SHARE_CRITICAL = 0.3;

    /** What the ORM is doing, by its frames; each has its own cure. */
    enum Phase {
        FLUSH("dirty-checking the managed entities at flush",
                "Hibernate keeps a snapshot of every entity it loads and compares each one at every flush: read in"
                + " @Transactional(readOnly = true) (no snapshots, no flush), load fewer entities, or clear() the"
                + " session between batches.",
                "org.hibernate.event.internal.AbstractFlushingEventListener", "org.hibernate.event.internal.DefaultFlushEntityEventListener",
                "org.hibernate.event.internal.DefaultAutoFlushEventListener", "org.hibernate.engine.internal.Cascade"),
        QUERY("compiling queries (HQL/JPQL to SQL)",
                "The query is translated again on each call: bind values as parameters instead of building the query"
                + " string, and pad IN lists (hibernate.query.in_clause_parameter_padding) so their plans are cached.",
                "org.hibernate.query.hql.", "org.hibernate.query.sqm.tree.", "org.hibernate.query.sqm.sql.",
                "org.hibernate.query.sqm.internal.QuerySqmImpl.<init>", "org.hibernate.hql.", "org.hibernate.grammars."),
        HYDRATE("building entities from the result set",
                "The query loads more entities than the request needs: compute it in the database (an aggregate such as"
                + " select sum(...), a count), select only the needed columns into a DTO projection, page the result, or"
                + " read it @Transactional(readOnly = true) so Hibernate keeps no snapshots of what it builds.",
                "org.hibernate.sql.results.", "org.hibernate.loader.", "org.hibernate.engine.internal.TwoPhaseLoad",
                "org.hibernate.engine.internal.StatefulPersistenceContext", "org.hibernate.sql.exec.",
                "org.apache.ibatis.executor.resultset.", "org.apache.ibatis.reflection.", "org.apache.ibatis.type.");

        final String what;
        final String fix;
        private final String[] frames;

        Phase(String what, String fix, String... frames) {
            this.what = what;
            this.fix = fix;
            this.frames = frames;
        }

        static String of(String[] stack) {
            for (Phase p : values()) {
                for (String f : stack) if (Frames.startsWithAny(f, p.frames)) return p.name();
            }
            return null;
        }
    }

    /** Hibernate's flush before a query, so that the query sees the session's pending changes. */
    private static final String[] AUTO_FLUSH = {"org.hibernate.event.internal.DefaultAutoFlushEventListener"};

    /**
     * A loop that queries and then changes an entity: every query flushes what the loop changed so
     * far, one statement at a time, and dirty-checks all the session holds, so the cost grows with
     * the square of the loop. A service outside the lab that looked each of 200 items up before
     * saving it served 20 imports a second, 53 with one lookup for all of them first.
     */
    static final String AUTO_FLUSH_FIX = "Query before changing, not in between: look the rows up in one query before the"
            + " loop (findAllBy…In, a join fetch), then save; or run the loop with the session's flush mode at COMMIT"
            + " (its queries then do not see the loop's pending changes) and clear() the session every few hundred"
            + " entities; with hibernate.jdbc.batch_size set and a sequence id, the inserts then leave in batches.";

    /** JDBC drivers and sockets: below the ORM, that is the database round trip. */
    private static final String[] DRIVERS = {
        "org.postgresql.", "com.mysql.", "org.mariadb.", "oracle.jdbc.", "com.microsoft.sqlserver.", "org.h2.", "org.hsqldb.",
        "org.apache.derby.", "sun.nio.ch.", "java.net.Socket"
    };

    @Override public String id() { return "orm-cpu"; }
    @Override public String title() { return "CPU spent in the ORM (entity loading, dirty checking)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<CpuProfile> profile = ev.cpuProfileIfAny();
        if (profile.isEmpty()) return notAssessed("no cpu profile (profiles/cpu.collapsed)");
        CpuProfile p = profile.get();
        CpuProfile orm = p.only(OrmCpuRule::ormOwn);
        double share = p.samples() == 0 ? 0 : (double) orm.samples() / p.samples();
        Numbers n = new Numbers();
        String ref = "profiles/cpu.collapsed";
        Finding.Builder b = finding(Severity.OK).evidence(ref);
        if (share < SHARE_WARN) {
            return b.summary("the ORM's own work (Hibernate's, MyBatis's; no JDBC driver below it) in " + n.tag(Fmt.pct(share), ref)
                    + " of CPU samples.").numbers(n.refs()).build();
        }
        boolean mybatis = mybatis(orm);
        String name = mybatis ? "MyBatis" : "Hibernate";
        Map.Entry<String, Long> phase = top(orm.sumBy(Phase::of));
        double flushShare = (double) orm.only(st -> "FLUSH".equals(Phase.of(st))).samples() / p.samples();
        // Flushes a query set off (with the statements they sent): the changes go out one query at a time.
        double autoFlush = (double) p.only(st -> Frames.anyStartsWith(st, AUTO_FLUSH)).samples() / p.samples();
        boolean auto = autoFlush >= SHARE_WARN && autoFlush >= flushShare;
        if (!auto && (phase == null || phase.getValue() * 2 < orm.samples())) {
            // No phase dominates: the ORM's machinery around each statement (plugins, the Spring transaction, parameter
            // binding, a few rows' mapping). A MyBatis service paging 20 rows per call read 18 % here, 7 % of it mapping,
            // and a Hibernate one counting and reading a page with bind parameters 18 %, 6.6 % of it building entities:
            // what a call costs, which only fewer calls reduce.
            return b.severity(Severity.INFO).score(share / 4).summary(name + "'s own work holds " + n.tag(Fmt.pct(share), ref)
                    + " of CPU samples, spread over its work around each statement (" + (mybatis ? "plugins" : "the session")
                    + ", transactions, parameter binding,"
                    + " mapping) with no part holding half of it: the cost of each call, not of many rows.").numbers(n.refs()).build();
        }
        Phase ph = phase == null ? Phase.HYDRATE : Phase.valueOf(phase.getKey());
        Map.Entry<String, Long> caller = top(orm.sumBy(OrmCpuRule::caller));
        String site = caller == null ? null : caller.getKey();
        int queryRow = site == null ? -1 : SlowCallsRule.costliestSqlRow(ev, site);
        String query = queryRow < 0 ? null : ev.rows("calls").orElseThrow().text(queryRow, "target");
        Table calls = queryRow < 0 ? null : ev.rows("calls").orElseThrow();
        boolean counted = queryRow >= 0 && !mybatis && CallShape.pagedInMemory(calls, queryRow);
        String warning = queryRow >= 0 && !mybatis && !counted ? CallShape.warnedPagedInMemory(ev, calls, queryRow) : null;
        boolean pagedInMemory = counted || warning != null;
        if (auto) b.explains("chatty-calls").explains("pool-size").explains("pool-starvation");
        // Paged in memory, the cost grows with the table, not the page: the ORM's CPU is only part of it (the rows' transfer,
        // the garbage), so it is the cause at a share that would otherwise be a warning.
        if (pagedInMemory) b.explains("slow-calls").explains("pool-size").explains("pool-starvation");
        return b.severity(share >= SHARE_CRITICAL || pagedInMemory ? Severity.CRITICAL : Severity.WARN).score(pagedInMemory ? Math.max(share, SHARE_CRITICAL) : share)
                .culprit(site == null ? "Hibernate" : site)
                .summary(name + "'s own work holds " + n.tag(Fmt.pct(share), ref) + " of CPU samples, "
                        + (phase == null || phase.getValue() * 2 >= orm.samples() ? "most of it " : "the largest known part ")
                        + (mybatis && ph == Phase.HYDRATE ? MYBATIS_WHAT : ph.what)
                        + (phase == null ? "" : " (" + n.tag(Fmt.pct((double) phase.getValue() / p.samples()), ref) + ")")
                        + (ph != Phase.FLUSH && flushShare >= 0.05 ? ", and " + n.tag(Fmt.pct(flushShare), ref) + " dirty-checking at flush" : "")
                        + (site == null ? "" : ", for " + site) + (query == null ? "" : ", whose query is " + SlowCallsRule.quote(query))
                        + (pagedInMemory ? ": it joins a collection and has no LIMIT while "
                        + (counted ? "the same method counts the rows" : warning.isEmpty() ? "Hibernate's query logger warns at the statement's rate"
                        : "Hibernate warns \"" + warning + "\" at the statement's rate")
                        + ", a page read through a collection fetch, which Hibernate runs unpaged and slices in memory (HHH90003004): every"
                        + " page reads, and builds entities for, the whole result" : "")
                        + "; none of it is in the statement's time"
                        + (auto ? "; " + n.tag(Fmt.pct(autoFlush), ref) + " of CPU samples flush the session automatically before a"
                        + " query (Hibernate's auto-flush), each flush sending the pending changes alone and dirty-checking every"
                        + " managed entity again" : "") + ".")
                .numbers(n.refs())
                .explanation(mybatis ? "A mapper turns each row into an object (instantiation, and a type handler and a"
                        + " reflective setter per column): the cost grows with the rows a request fetches, on the service's CPUs,"
                        + " after the driver has returned them, and the garbage they leave grows with it."
                        : ph == Phase.QUERY ? QUERY_WHY
                        : pagedInMemory ? "A LIMIT counts rows, and a collection fetch returns its parent once per element: Hibernate"
                        + " cannot limit those rows to a page of parents, so it sends the query without LIMIT, builds an entity for"
                        + " every parent and element of the whole result, and keeps one page (logging HHH90003004 each time). The"
                        + " cost grows with the table, not the page: reading the rows, building the entities, and the garbage."
                        : "An ORM turns each row into a managed entity (instantiation, type conversion, a snapshot for"
                        + " dirty checking, the persistence context's maps) and compares every managed entity at flush: the"
                        + " cost grows with the entities a request touches, on the service's CPUs, after the driver has"
                        + " returned. The query itself stays quick, so no slow-call threshold fires.")
                .fix(auto ? AUTO_FLUSH_FIX : pagedInMemory ? CallShape.PAGED_IN_MEMORY_FIX : mybatis && ph == Phase.HYDRATE ? MYBATIS_FIX : ph.fix)
                .confirm(site == null ? null : ev.confirm("trace " + Frames.classAndMethod(site) + " -n 3"))
                .explains("cpu-saturation").explains("tail-latency").explains("thread-oversubscription").explains("gc-pressure")
                .build();
    }

    /**
     * Hibernate's other projects share its package root but are no ORM: Hibernate Validator (Bean
     * Validation, in every Spring Boot service with spring-boot-starter-validation) and Search. A
     * service outside the lab that built a ValidatorFactory per request read "Hibernate's own work
     * holds 58 % of CPU samples, most of it building entities from the result set" without a query.
     */
    private static final String[] NOT_ORM = {"org.hibernate.validator.", "org.hibernate.search."};
    private static final String[] MYBATIS = {"org.apache.ibatis.", "org.mybatis."};
    /**
     * A service outside the lab pasted a category and a price into its JPQL (session 37): 21 % of
     * its CPU samples translated queries, 218 requests/s against 806 with bind parameters.
     */
    private static final String QUERY_WHY = "Hibernate parses each query string and translates it to SQL, then keeps the"
            + " translation keyed by the string's text (the query plan cache, 2,048 entries by default). A query with its"
            + " values pasted in is a new text on nearly every call, so each call parses and translates it again on the"
            + " service's CPUs, and pushes useful plans out of the cache; the database then plans each literal statement anew"
            + " too. The statement itself stays quick, so no slow-call threshold fires.";

    /** A frame of Hibernate ORM or of MyBatis. */
    static boolean isOrm(String frame) {
        return frame.startsWith("org.hibernate.") && !Frames.startsWithAny(frame, NOT_ORM) || Frames.startsWithAny(frame, MYBATIS);
    }

    /** The ORM of a sample's outermost ORM frame: "MyBatis" or "Hibernate". */
    private static String ormOf(String[] stack) {
        for (String f : stack) if (isOrm(f)) return Frames.startsWithAny(f, MYBATIS) ? "MyBatis" : "Hibernate";
        return null;
    }

    /** MyBatis keeps no managed entities: only its result mapping, and its cure, are its own. */
    static final String MYBATIS_WHAT = "mapping rows to result objects";
    static final String MYBATIS_FIX = "The statement returns more rows than the request needs: compute it in the database (an"
            + " aggregate such as select avg(...), a count), select only the needed columns, page the result (LIMIT), or"
            + " stream it through a ResultHandler or a Cursor instead of building a list of every row.";

    /**
     * A sample in Hibernate's own code: a Hibernate frame with no JDBC driver or socket frame below
     * it, and no JPA AttributeConverter of the application's: what a converter computes is its own
     * work. A service outside the lab built an ObjectMapper in its converter for each row, and
     * orm-cpu had claimed the 72 % spent there as entity building.
     */
    private static boolean ormOwn(String[] stack) {
        int first = -1;
        for (int i = 0; i < stack.length; i++) if (isOrm(stack[i])) { first = i; break; }
        if (first < 0) return false;
        for (int i = first + 1; i < stack.length; i++) {
            if (Frames.startsWithAny(stack[i], DRIVERS) || converter(stack[i])) return false;
        }
        return true;
    }

    /** A JPA AttributeConverter's method, by its name in the interface. */
    private static boolean converter(String frame) {
        String m = Frames.stripLine(frame);
        return m.endsWith(".convertToEntityAttribute") || m.endsWith(".convertToDatabaseColumn");
    }

    /** Whether most of the ORM's samples are MyBatis's. */
    private static boolean mybatis(CpuProfile orm) {
        return orm.only(st -> "MyBatis".equals(ormOf(st))).samples() * 2 > orm.samples();
    }

    /** The application frame nearest above the first ORM frame (root first): who asked the ORM. */
    private static String caller(String[] stack) {
        return Frames.applicationAbove(stack, OrmCpuRule::isOrm);
    }

    private static Map.Entry<String, Long> top(Map<String, Long> m) {
        return m.entrySet().stream().filter(e -> e.getKey() != null).max(Map.Entry.comparingByValue()).orElse(null);
    }
}
