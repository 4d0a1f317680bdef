package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Numbers;
import io.culprit.model.Table;
import java.util.Optional;

/**
 * Which of the application's executors a hand-off queued on, read from table {@code executors}
 * (one row per bounded executor the agent found): series {@code pools} holds their sums only, and
 * "the application's executors are full" leaves the user to guess which one, and which setting
 * sizes it. The one named is the executor full in the most windows, once it is full in most of them.
 */
final class FullExecutor {

    /** Spring Boot's {@code applicationTaskExecutor}, the default for {@code @Async}: its default thread-name prefix. */
    static final String SPRING_PREFIX = "task-";

    final int row;
    final String name;
    final double threads, core, max, windows, fullWindows;
    final boolean unbounded;

    private FullExecutor(Table t, int row) {
        this.row = row;
        this.name = t.text(row, "executor");
        this.threads = t.number(row, "threads");
        this.core = t.number(row, "core");
        this.max = t.number(row, "max");
        this.windows = t.number(row, "windows");
        this.fullWindows = t.number(row, "fullWindows");
        this.unbounded = Boolean.parseBoolean(t.text(row, "unboundedQueue"));
    }

    /** The executor full in the most windows, when that is most of them ({@link ContainerQueueRule#FULL_SHARE}). */
    static Optional<FullExecutor> of(Evidence ev) {
        Optional<Table> rows = ev.rows("executors");
        if (rows.isEmpty()) return Optional.empty();
        return busiest(rows.get(), ContainerQueueRule.FULL_SHARE, i -> true);
    }

    /** The row full in the largest share of its windows, once that share reaches {@code minShare}, among the rows {@code eligible} accepts. */
    private static Optional<FullExecutor> busiest(Table t, double minShare, java.util.function.IntPredicate eligible) {
        int best = -1;
        double bestShare = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double windows = t.number(i, "windows"), share = t.number(i, "fullWindows") / windows;
            if (eligible.test(i) && windows >= ContainerQueueRule.MIN_WINDOWS && share >= minShare && share > bestShare) {
                best = i;
                bestShare = share;
            }
        }
        return best < 0 ? Optional.empty() : Optional.of(new FullExecutor(t, best));
    }

    /** Busy in this share of the windows, with the waiters' path through the class that built it: the pool they queue on. */
    static final double HANDED_TO_SHARE = 0.5;

    /**
     * The executor a hand-off's waiters queue on when no pool is full in most windows: one whose
     * thread factory's class is on the waiters' path ({@code waiterPath}, "a.B.m:1 ← c.D.n:2") and
     * that had every thread busy in at least half the windows. A library's own pool found so:
     * MyBatis-Plus parses SQL on {@code JsqlParserGlobal}'s, (cores + 1) / 2 threads, one on two
     * cores, busy in 12 of 21 windows while requests waited 23 % of their time for it.
     */
    static Optional<FullExecutor> handedTo(Evidence ev, String waiterPath) {
        Optional<Table> rows = ev.rows("executors");
        if (rows.isEmpty() || waiterPath == null || waiterPath.isEmpty()) return Optional.empty();
        Table t = rows.get();
        return busiest(t, HANDED_TO_SHARE, i -> {
            String builder = builder(t.text(i, "executor"));
            return builder != null && (waiterPath.contains("." + builder + ".") || waiterPath.contains("." + builder + "$"));
        });
    }

    /** The class whose thread factory names an executor with no thread-name prefix ("JsqlParserGlobal$$Lambda$13/0x…@5e"); null otherwise. */
    static String builder(String executor) {
        if (executor == null || executor.endsWith("-")) return null;
        int end = executor.indexOf("$$Lambda");
        if (end < 0) end = executor.indexOf('@');
        if (end <= 0) return null;
        String c = executor.substring(0, end);
        return c.substring(c.lastIndexOf('.') + 1);
    }

    /** A thread-name prefix (Spring's executors: the bean's name and "-") names the pool by its threads. */
    String label() {
        if (name.endsWith("-")) return "executor whose threads are named " + name + "N";
        return name.contains("$$Lambda") ? "executor whose thread factory is a lambda in " + builder(name) : "executor " + name;
    }

    /** A hand-off's executor found by {@link #handedTo}: how busy it was, and its known setting. */
    String handedClause(Numbers n) {
        String ref = "tables/executors#" + row;
        return "; they queue on the " + label() + ": " + n.tag(Fmt.num(threads), ref) + (threads == 1 ? " thread" : " threads")
                + (unbounded ? " behind an unbounded queue" : "") + ", all busy in " + n.tag(Fmt.num(fullWindows), ref) + " of "
                + Fmt.num(windows) + " windows";
    }

    /** MyBatis-Plus's parser pool, whose size and cache are set in code. */
    static final String JSQL_PARSER_FIX = " It is MyBatis-Plus's SQL parser pool (JsqlParserGlobal.executorService, 3.5.9 and later:"
            + " (cores + 1) / 2 threads): every statement its interceptors parse (the pagination count, tenant and data-permission"
            + " rewrites) runs there while the request waits. Cache the parses (JsqlParserGlobal.setJsqlParseCache(new"
            + " JdkSerialCaffeineJsqlParseCache(c -> c.maximumSize(1024)))), give it threads at startup (assign"
            + " JsqlParserGlobal.executorService a larger pool), and turn off the parses a page does not need (the count:"
            + " new Page<>(current, size, false)).";

    String handedFix() {
        return "JsqlParserGlobal".equals(builder(name)) ? JSQL_PARSER_FIX : fix();
    }

    boolean spring() {
        return SPRING_PREFIX.equals(name);
    }

    /** "; the full one is executor task- (Spring Boot's …): 8 core threads behind an unbounded queue, …". */
    String clause(Numbers n) {
        String ref = "tables/executors#" + row;
        return "; the full one is the " + label() + (spring() ? " (Spring Boot's applicationTaskExecutor, @Async's default)" : "")
                + ": " + n.tag(Fmt.num(threads), ref) + (unbounded ? " core threads behind an unbounded queue" : " threads at most");
    }

    /** The setting that sizes it, after the generic cure. */
    String fix() {
        String cores = Fmt.num(core);
        if (spring()) {
            return " It is Spring Boot's applicationTaskExecutor: raise spring.task.execution.pool.core-size (" + cores + " now)."
                    + (unbounded ? " Its queue is unbounded, so spring.task.execution.pool.max-size never applies (a thread beyond"
                    + " the core starts only when the queue is full); set queue-capacity to bound it, or define an executor"
                    + " of its own for this work." : "");
        }
        if (unbounded && max > core) {
            return " The " + label() + " has an unbounded queue, so it never runs more than its " + cores + " core threads:"
                    + " its maximum of " + Fmt.num(max) + " applies only once the queue is full. Raise its core size"
                    + " (setCorePoolSize, or the core size its configuration sets).";
        }
        return " The " + label() + " runs at most " + Fmt.num(threads) + " threads.";
    }
}
