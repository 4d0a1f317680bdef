package io.culprit.agent.instrument;

import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.instrument.internal.Args;
import io.culprit.agent.instrument.internal.Dispatcher;
import io.culprit.agent.instrument.internal.OverheadBreaker;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The life of one instrumenting command. Application threads capture raw results and hand them
 * to a bounded queue; the command's own thread renders and prints them, watches the overhead
 * breaker and the {@code -n} limit, and removes the weaving on the way out.
 *
 * <p>Admission: the command thread grants permits (the {@code -n} limit, the queue's room and,
 * for commands that print every record, a rate cap); an application thread first reads one
 * volatile flag, and only while permits remain does it claim one with a CAS. So when the client
 * is behind, a call is skipped before any work, with no write to a shared cache line except a
 * striped counter. With {@code -n} up to 1024 the first N matching invocations are printed,
 * exactly; a larger N is a stream: at most {@code --rate} records in any second.
 */
public final class CommandRun {

    /** Results in flight between application threads and the command thread. */
    static final int CAPACITY = 1024;
    /** Default cap on printed records per second for trace and watch streams (-n above CAPACITY). */
    public static final long DEFAULT_RATE = 100;

    private final CommandContext ctx;
    private final String name;
    private final long limit;
    private final long rate;
    /** How often the command thread wakes to grant permits: often enough for a smooth rate cap. */
    private final long grantNanos;
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private final LongAdder skipped = new LongAdder();
    private volatile long allowance;
    private volatile boolean open = true;
    private double carry;
    /** Incremented by listeners once per woven event; the breaker reads it. */
    public final LongAdder events = new LongAdder();
    /** Time application threads spent capturing accepted results (watch, stack), for the breaker. */
    public final LongAdder workNanos = new LongAdder();
    private final OverheadBreaker breaker;
    private volatile Installation installation;

    /** {@code rate}: the most records per second a stream (-n above CAPACITY) prints; 0 for no cap. */
    public CommandRun(CommandContext ctx, String name, long limit, long rate, long budget, long cpuBudgetPercent) {
        this.ctx = ctx;
        this.name = name;
        this.limit = limit;
        this.rate = rate;
        this.grantNanos = TimeUnit.MILLISECONDS.toNanos(rate > 0 ? 50 : 100);
        // Up to the queue's capacity, -n asks for the first N matching invocations: all admitted.
        // Beyond it, -n asks for a stream, which starts with one second's worth of records.
        this.allowance = limit <= CAPACITY || rate <= 0 ? Math.min(limit, CAPACITY) : Math.min(rate, CAPACITY);
        this.breaker = new OverheadBreaker(events::sum, workNanos::sum, budget, cpuBudgetPercent);
    }

    /**
     * A run with the budget options every instrumenting command takes ({@code --budget},
     * {@code --cpu-budget}, and {@code --rate} when {@code capped}: commands that print a record
     * per invocation).
     */
    static CommandRun of(CommandContext ctx, String name, Args args, long limit, boolean capped) throws CommandException {
        long budget = args.number("--budget", OverheadBreaker.DEFAULT_BUDGET, 1, Long.MAX_VALUE);
        long cpu = args.number("--cpu-budget", OverheadBreaker.DEFAULT_CPU_BUDGET, 1, 100);
        long rate = capped ? args.number("--rate", DEFAULT_RATE, 1, 1_000_000) : 0;
        return new CommandRun(ctx, name, limit, rate, budget, cpu);
    }

    /** The value options {@link #of} reads, for a command's {@code Args.parse}. */
    static Set<String> options(boolean capped, String... others) {
        Set<String> all = new HashSet<>(List.of(others));
        all.addAll(List.of("--budget", "--cpu-budget"));
        if (capped) {
            all.add("--rate");
        }
        return all;
    }

    public void installed(Installation installation) {
        this.installation = installation;
        ctx.onCancel(installation::close);
    }

    /** The calibrated cost of one counted event on an application thread (for the CPU budget). */
    void eventCost(double nanos) {
        breaker.eventCost(nanos);
    }

    boolean json() {
        return ctx.json();
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
     * The cheap first check on an application thread: false (and the call counted as skipped)
     * while no permit is left, so the caller does no work at all for this call.
     */
    public boolean admits() {
        if (open) {
            return true;
        }
        skip();
        return false;
    }

    /**
     * Claims one of the permits; false once none is left (skip the work). A successful claim
     * must be followed by {@link #emit} or {@link #done}.
     */
    public boolean claim() {
        if (!open) {
            skip();
            return false;
        }
        for (;;) {
            long c = claimed.get();
            if (c >= allowance) {
                open = false;
                skip();
                return false;
            }
            if (claimed.compareAndSet(c, c + 1)) {
                return true;
            }
        }
    }

    private void skip() {
        if (allowance < limit) {  // beyond -n nothing is missing: the command is ending
            skipped.increment();
        }
    }

    /** Called on an application thread after a successful {@link #claim()}; rendered by the command thread. */
    public void emit(Object record) {
        if (!queue.offer(record)) {  // cannot happen while permits ≤ room; never block the caller
            skipped.increment();
            finished.incrementAndGet();
        }
    }

    /** A claimed result is complete without going through the queue (aggregated in place). */
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

    /** {@link #loop(long, Runnable, Consumer)} for commands that emit nothing. */
    public void loop(long tickNanos, Runnable onTick) throws CommandException, InterruptedException {
        loop(tickNanos, onTick, record -> { });
    }

    /**
     * Renders results with {@code render} until the limit, a cancel, a reset or the breaker; calls
     * {@code onTick} every {@code tickNanos} (0: never) and always removes the weaving before returning.
     */
    public void loop(long tickNanos, Runnable onTick, Consumer<Object> render) throws CommandException, InterruptedException {
        String stopped = null;
        long nextTick = tickNanos > 0 ? System.nanoTime() + tickNanos : Long.MAX_VALUE;
        long lastGrant = System.nanoTime();
        breaker.start();
        try {
            while (!ctx.cancelled() && !installation.closed()) {
                long wait = Math.min(grantNanos, Math.max(0, nextTick - System.nanoTime()));
                Object item = queue.poll(wait, TimeUnit.NANOSECONDS);
                if (item != null) {
                    render.accept(item);
                    finished.incrementAndGet();
                }
                if (finished.get() >= limit && queue.isEmpty()) {
                    break;
                }
                long now = System.nanoTime();
                if (now - lastGrant >= grantNanos) {
                    grant(now - lastGrant);
                    lastGrant = now;
                }
                if (now >= nextTick) {
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
        for (Object item; (item = queue.poll()) != null; ) {
            render.accept(item);
            finished.incrementAndGet();
        }
        if (installation.closed() && stopped == null && !ctx.cancelled() && finished.get() < limit) {
            ctx.println(name + " ended: its instrumentation was removed (reset or stop)");
        }
        long skips = skipped.sum();
        if (skips > 0) {
            ctx.println(String.format("%,d records skipped (client slower than target%s)", skips,
                    rate > 0 ? "; at most " + rate + " printed per second, --rate to change" : ""));
        }
        if (stopped != null) {
            throw new CommandException(stopped);
        }
    }

    /**
     * Command thread only. Permits never exceed the limit nor the queue's free room; with a rate
     * cap, unused permits accumulate up to one second's worth.
     */
    private void grant(long elapsedNanos) {
        long used = claimed.get();
        long ceiling = Math.min(limit, finished.get() + CAPACITY);
        long next;
        if (rate <= 0) {
            next = ceiling;
        } else {
            carry += rate * elapsedNanos / 1e9;
            long whole = (long) carry;
            carry -= whole;
            long permits = Math.min(Math.max(rate, 1), Math.max(0, allowance - used) + whole);
            next = Math.min(ceiling, used + permits);
        }
        if (next > allowance) {
            allowance = next;
        }
        if (!open && used < allowance) {
            open = true;
        }
    }
}
