package io.culprit.agent.instrument;

import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.agent.instrument.internal.OverheadBreaker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The life of one instrumenting command: application threads hand finished results to a bounded
 * queue (they never block and never write to the socket), the command's own thread prints them,
 * watches the overhead breaker and the {@code -n} limit, and removes the weaving on the way out.
 */
public final class CommandRun {

    private static final Object[] END = new Object[0];

    private final CommandContext ctx;
    private final String name;
    private final int limit;
    private final BlockingQueue<Object[]> queue = new ArrayBlockingQueue<>(1024);
    private final AtomicInteger claimed = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicLong dropped = new AtomicLong();
    /** Incremented by listeners once per woven event; the breaker reads it. */
    public final LongAdder events = new LongAdder();
    private final OverheadBreaker breaker;
    private volatile Installation installation;

    public CommandRun(CommandContext ctx, String name, int limit, long budget) {
        this.ctx = ctx;
        this.name = name;
        this.limit = limit;
        this.breaker = new OverheadBreaker(events::sum, budget);
    }

    public void installed(Installation installation) {
        this.installation = installation;
        ctx.onCancel(installation::close);
    }

    /**
     * Gives every target its own dispatcher id bound to {@code listener} (recorded in {@code byId}
     * so the listener knows which method fired), weaves them with {@code plan}, and tells the user
     * what was affected, as Arthas does.
     */
    Installation weave(Plan plan, Listener listener, List<MethodTarget> targets, Map<Integer, MethodTarget> byId)
            throws CommandException {
        List<Integer> ids = new ArrayList<>();
        for (MethodTarget t : targets) {
            int id = Dispatcher.INSTANCE.register(listener);
            byId.put(id, t);
            plan.advise(t, id);
            ids.add(id);
        }
        Installation woven = Instrumenter.install(ctx.instrumentation(), plan, ids);
        installed(woven);
        ctx.println(String.format("Press Ctrl-C to abort. Affect(class count: %d, method count: %d)",
                woven.classCount(), targets.size()) + woven.note());
        return woven;
    }

    /**
     * Claims one of the {@code -n} results; false once the limit is reached (skip the work).
     * A successful claim must be followed by {@link #emit} or {@link #done}.
     */
    public boolean claim() {
        return claimed.incrementAndGet() <= limit;
    }

    /** Called on an application thread after a successful {@link #claim()}. Never blocks. */
    public void emit(String text, Object data) {
        if (!queue.offer(new Object[] {text, data})) {
            dropped.incrementAndGet();
        }
        done();
    }

    /** A claimed result is complete (recorded, or queued by {@link #emit}). */
    public void done() {
        finished.incrementAndGet();
    }

    public void print(String text, Object data) {
        if (ctx.json()) {
            if (data != null) {
                ctx.data(data);
            }
        } else if (text != null) {
            ctx.println(text);
        }
    }

    /**
     * Prints results until the limit, a cancel, a reset or the breaker; calls {@code onTick}
     * every {@code tickNanos} (0: never) and always removes the weaving before returning.
     */
    public void loop(long tickNanos, Runnable onTick) throws CommandException, InterruptedException {
        String stopped = null;
        long nextTick = tickNanos > 0 ? System.nanoTime() + tickNanos : Long.MAX_VALUE;
        try {
            while (!ctx.cancelled() && !installation.closed()) {
                long wait = Math.min(TimeUnit.MILLISECONDS.toNanos(100), Math.max(0, nextTick - System.nanoTime()));
                Object[] item = queue.poll(wait, TimeUnit.NANOSECONDS);
                if (item != null && item != END) {
                    print((String) item[0], item[1]);
                }
                if (finished.get() >= limit && queue.isEmpty()) {
                    break;
                }
                if (System.nanoTime() >= nextTick) {
                    onTick.run();
                    nextTick += tickNanos;
                }
                stopped = breaker.check(name);
                if (stopped != null) {
                    break;
                }
            }
        } finally {
            installation.close();
        }
        for (Object[] item; (item = queue.poll()) != null; ) {
            print((String) item[0], item[1]);
        }
        if (installation.closed() && stopped == null && !ctx.cancelled() && finished.get() < limit) {
            ctx.println(name + " ended: its instrumentation was removed (reset or stop)");
        }
        if (dropped.get() > 0) {
            ctx.println(dropped.get() + " results dropped: the client read slower than the target produced");
        }
        if (stopped != null) {
            throw new CommandException(stopped);
        }
    }
}
