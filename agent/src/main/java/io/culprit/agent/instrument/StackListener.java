package io.culprit.agent.instrument;

import io.culprit.agent.instrument.expr.EvalException;
import io.culprit.agent.instrument.expr.Env;
import io.culprit.agent.instrument.expr.Expression;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Records the call path of each matching invocation at its exit (so a {@code #cost} condition
 * can apply) and aggregates identical paths: the answer to "who calls this, and how often".
 */
final class StackListener extends Listener {

    private static final int MAX_FRAMES = 64;

    private final CommandRun run;
    private final Expression condition;
    final Map<Integer, MethodTarget> targets = new ConcurrentHashMap<>();
    final Map<String, LongAdder> paths = new ConcurrentHashMap<>();

    StackListener(CommandRun run, Expression condition) {
        this.run = run;
        this.condition = condition;
    }

    @Override
    public void exit(int id, long start, Throwable thrown) {
        record(id, start, null, null, null, thrown);
    }

    @Override
    public void exitArgs(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
        record(id, start, self, args, returned, thrown);
    }

    private void record(int id, long start, Object self, Object[] args, Object returned, Throwable thrown) {
        long now = System.nanoTime();
        run.events.increment();
        if (!run.admits()) {
            return;  // -n reached: nothing more to do for this call
        }
        try {
            MethodTarget t = targets.get(id);
            if (condition != null) {
                Env env = new Env();
                env.params = args;
                env.target = self;
                env.returnObj = returned;
                env.throwExp = thrown;
                env.costMs = (now - start) / 1e6;
                env.clazz = t.type;
                env.method = t.method.name;
                try {
                    if (!condition.test(env)) {
                        return;
                    }
                } catch (EvalException e) {
                    return;
                }
            }
            if (!run.claim()) {
                return;
            }
            String path = StackWalker.getInstance().walk(frames -> frames
                    .dropWhile(f -> !(f.getClassName().equals(t.type.getName()) && f.getMethodName().equals(t.method.name)))
                    .limit(MAX_FRAMES)
                    .map(f -> f.getClassName() + "." + f.getMethodName() + "(" + f.getFileName() + ":" + f.getLineNumber() + ")")
                    .collect(Collectors.joining("\n")));
            paths.computeIfAbsent(path, k -> new LongAdder()).increment();
            run.done();
        } finally {
            run.workNanos.add(System.nanoTime() - now);  // the agent's own time, for the CPU budget
        }
    }
}
