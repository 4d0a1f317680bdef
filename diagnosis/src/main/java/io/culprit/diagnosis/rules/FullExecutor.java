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
    final double threads, core, max;
    final boolean unbounded;

    private FullExecutor(Table t, int row) {
        this.row = row;
        this.name = t.text(row, "executor");
        this.threads = t.number(row, "threads");
        this.core = t.number(row, "core");
        this.max = t.number(row, "max");
        this.unbounded = Boolean.parseBoolean(t.text(row, "unboundedQueue"));
    }

    /** The executor full in the most windows, when that is most of them ({@link ContainerQueueRule#FULL_SHARE}). */
    static Optional<FullExecutor> of(Evidence ev) {
        Optional<Table> rows = ev.rows("executors");
        if (rows.isEmpty()) return Optional.empty();
        Table t = rows.get();
        int best = -1;
        double bestShare = 0;
        for (int i = 0; i < t.rows().size(); i++) {
            double windows = t.number(i, "windows"), share = t.number(i, "fullWindows") / windows;
            if (windows >= ContainerQueueRule.MIN_WINDOWS && share >= ContainerQueueRule.FULL_SHARE && share > bestShare) {
                best = i;
                bestShare = share;
            }
        }
        return best < 0 ? Optional.empty() : Optional.of(new FullExecutor(t, best));
    }

    /** A thread-name prefix (Spring's executors: the bean's name and "-") names the pool by its threads. */
    String label() {
        return name.endsWith("-") ? "executor whose threads are named " + name + "N" : "executor " + name;
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
