package io.culprit.agent.instrument;

import io.culprit.agent.instrument.expr.EvalException;
import io.culprit.agent.instrument.expr.Env;
import io.culprit.agent.instrument.expr.Expression;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Evaluates the watch expression at the chosen points (-b before, -s return, -e throw, -f both). */
final class WatchListener extends Listener {

    private final CommandRun run;
    private final Expression express;
    private final Expression condition;
    private final boolean before;
    private final boolean success;
    private final boolean exception;
    private final int expand;
    final Map<Integer, MethodTarget> targets = new ConcurrentHashMap<>();

    WatchListener(CommandRun run, Expression express, Expression condition, boolean before, boolean success,
                  boolean exception, int expand) {
        this.run = run;
        this.express = express;
        this.condition = condition;
        this.before = before;
        this.success = success;
        this.exception = exception;
        this.expand = expand;
    }

    /** What an application thread captures for one result; the command thread formats it. */
    private static final class Result {
        final MethodTarget target;
        final String location;
        final double costMs;
        final long wallMillis = System.currentTimeMillis();
        final String thread = Thread.currentThread().getName();
        final String rendered;

        Result(MethodTarget target, String location, double costMs, String rendered) {
            this.target = target;
            this.location = location;
            this.costMs = costMs;
            this.rendered = rendered;
        }
    }

    @Override
    public long enterArgs(int id, Object self, Object[] args) {
        run.events.increment();
        long now = System.nanoTime();
        if (before && run.admits()) {
            Env env = env(id, self, args);
            env.isBefore = true;
            deliver(id, env, "AtEnter", now);
        }
        return now;
    }

    @Override
    public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
        long now = System.nanoTime();
        run.events.increment();
        if ((thrown != null ? !exception : !success) || !run.admits()) {
            return;  // not watched here, or the client is behind / -n reached: no work at all
        }
        Env env = env(id, self, args);
        env.returnObj = returned;
        env.throwExp = thrown;
        env.costMs = (now - start) / 1e6;
        deliver(id, env, thrown != null ? "AtExceptionExit" : "AtExit", now);
    }

    private Env env(int id, Object self, Object[] args) {
        Env env = new Env();
        MethodTarget t = targets.get(id);
        env.params = args;
        env.target = self;
        env.clazz = t.type;
        env.method = t.method.name;
        return env;
    }

    /**
     * Evaluates the condition and the expression here, on the application thread, because the
     * objects may change once the call returns; the command thread formats and prints. The time
     * spent from {@code since} is the agent's, for the CPU budget.
     */
    private void deliver(int id, Env env, String location, long since) {
        String rendered;
        try {
            try {
                if (condition != null && !condition.test(env)) {
                    return;
                }
            } catch (EvalException | RuntimeException e) {
                return;  // a condition that cannot be evaluated on this call does not match it
            }
            if (!run.claim()) {
                return;
            }
            try {
                rendered = ObjectRenderer.render(express.eval(env), expand);
            } catch (EvalException | RuntimeException e) {
                // A claim already made must still produce a result, or the -n count never completes.
                rendered = "<expression failed: " + e.getMessage() + ">";
            }
            run.emit(new Result(targets.get(id), location, env.costMs, rendered));
        } finally {
            run.workNanos.add(System.nanoTime() - since);
        }
    }

    /** On the command thread: formats one captured result. */
    void render(Object record) {
        Result r = (Result) record;
        String ts = TraceRenderer.TS.format(Instant.ofEpochMilli(r.wallMillis));
        if (run.json()) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("class", r.target.type.getName());
            data.put("method", r.target.method.name);
            data.put("location", r.location);
            data.put("ts", ts);
            data.put("costMs", r.costMs);
            data.put("thread", r.thread);
            data.put("result", r.rendered);
            run.print(null, data);
        } else {
            run.print(String.format("method=%s.%s location=%s%nts=%s; [cost=%.3fms] result=%s",
                    r.target.type.getName(), r.target.method.name, r.location, ts, r.costMs, r.rendered), null);
        }
    }
}
