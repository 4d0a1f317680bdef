package io.culprit.agent.instrument;

import io.culprit.agent.instrument.expr.EvalException;
import io.culprit.agent.instrument.expr.Env;
import io.culprit.agent.instrument.expr.Expression;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
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

    @Override
    public long enterArgs(int id, Object self, Object[] args) {
        run.events.increment();
        long now = System.nanoTime();
        if (before) {
            Env env = env(id, self, args);
            env.isBefore = true;
            deliver(id, env, "AtEnter");
        }
        return now;
    }

    @Override
    public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
        long took = System.nanoTime() - start;
        run.events.increment();
        if (thrown != null ? !exception : !success) {
            return;
        }
        Env env = env(id, self, args);
        env.returnObj = returned;
        env.throwExp = thrown;
        env.costMs = took / 1e6;
        deliver(id, env, thrown != null ? "AtExceptionExit" : "AtExit");
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

    private void deliver(int id, Env env, String location) {
        String rendered;
        try {
            if (condition != null && !condition.test(env)) {
                return;
            }
        } catch (EvalException | RuntimeException e) {
            return;  // a condition that cannot be evaluated on this call does not match it
        }
        try {
            if (!run.claim()) {
                return;
            }
            rendered = ObjectRenderer.render(express.eval(env), expand);
        } catch (EvalException | RuntimeException e) {
            // A claim already made must still produce a result, or the -n count never completes.
            rendered = "<expression failed: " + e.getMessage() + ">";
        }
        MethodTarget t = targets.get(id);
        String ts = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS"));
        String text = String.format("method=%s.%s location=%s%nts=%s; [cost=%.3fms] result=%s",
                t.type.getName(), t.method.name, location, ts, env.costMs, rendered);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("class", t.type.getName());
        data.put("method", t.method.name);
        data.put("location", location);
        data.put("ts", ts);
        data.put("costMs", env.costMs);
        data.put("thread", Thread.currentThread().getName());
        data.put("result", rendered);
        run.emit(text, data);
    }
}
