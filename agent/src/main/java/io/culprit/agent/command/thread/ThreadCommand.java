package io.culprit.agent.command.thread;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import io.culprit.agent.command.Flags;
import io.culprit.agent.command.Format;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code thread}: Arthas-compatible thread views. Without options, every thread ranked by CPU
 * over the interval (no stacks); {@code -n N} the N busiest with stacks (the "jtop" view);
 * {@code -b} the lock holder most threads wait on; {@code <id>} one thread's stack.
 */
public final class ThreadCommand implements Command {
    private static final int MAX_FRAMES = 64;

    @Override
    public String name() {
        return "thread";
    }

    @Override
    public String summary() {
        return "threads by CPU, busiest stacks, the blocking lock holder, one thread's stack";
    }

    @Override
    public String usage() {
        return "thread [-n N] [-i ms] [--state STATE] | thread -b | thread <id>\n"
                + "  thread                   every thread, busiest first, CPU over 200 ms\n"
                + "  thread -n 3 -i 1000      the 3 busiest threads over 1 s, with stacks\n"
                + "  thread -b                who holds the lock most threads wait on (monitors and j.u.c locks)\n"
                + "  thread 42                the stack of thread id 42\n"
                + "  thread --state BLOCKED   only threads in a state: NEW RUNNABLE BLOCKED WAITING TIMED_WAITING";
    }

    @Override
    public void run(List<String> args, CommandContext ctx) throws CommandException, InterruptedException {
        Flags f = Flags.parse(name(), args, List.of("-n", "-i", "--state"), List.of("-b")).atMostPositional(1);
        long interval = f.longValue("-i", 200, 10, 600_000);
        if (f.has("-b")) {
            blocking(ctx);
        } else if (!f.positional().isEmpty()) {
            one(ctx, f.positional().get(0));
        } else {
            Thread.State state = state(f.value("--state"));
            long top = f.longValue("-n", -1, 1, 10_000);
            busiest(ctx, CpuSampler.sample(interval), state, (int) top, interval);
        }
    }

    private static Thread.State state(String name) throws CommandException {
        if (name == null) {
            return null;
        }
        try {
            return Thread.State.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandException("thread: unknown state '" + name + "' (NEW RUNNABLE BLOCKED WAITING TIMED_WAITING TERMINATED)");
        }
    }

    private void busiest(CommandContext ctx, List<CpuSampler.Usage> usage, Thread.State state, int top, long interval) {
        List<Map<String, Object>> data = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        if (top < 0) {
            sb.append(Format.padLeft("ID", 6)).append("  ").append(Format.pad("NAME", 40)).append(Format.pad("STATE", 14))
                    .append(Format.padLeft("%CPU", 7)).append(Format.padLeft("TIME", 10)).append('\n');
        } else {
            sb.append("busiest ").append(top).append(" thread(s), CPU over ").append(interval).append(" ms\n");
        }
        Map<Long, ThreadInfo> withLocks = top >= 0 ? dumpWithLocks() : Map.of();
        int shown = 0;
        for (CpuSampler.Usage u : usage) {
            if (state != null && u.info.getThreadState() != state) {
                continue;
            }
            if (top >= 0 && shown >= top) {
                break;
            }
            shown++;
            ThreadInfo ti = u.info;
            Map<String, Object> m;
            if (top >= 0) {
                ThreadInfo detailed = withLocks.getOrDefault(ti.getThreadId(), ti);
                sb.append('\n').append(Format.percent(u.percent)).append(" cpu  ").append(StackRenderer.render(detailed, MAX_FRAMES));
                m = StackRenderer.data(detailed, MAX_FRAMES);
            } else {
                sb.append(Format.padLeft(String.valueOf(ti.getThreadId()), 6)).append("  ").append(Format.pad(ti.getThreadName(), 39)).append(' ')
                        .append(Format.pad(ti.getThreadState().name(), 14)).append(Format.padLeft(Format.percent(u.percent), 7))
                        .append(Format.padLeft(Format.duration(u.cpuNanos / 1_000_000), 10)).append('\n');
                m = new LinkedHashMap<>();
                m.put("id", ti.getThreadId());
                m.put("name", ti.getThreadName());
                m.put("state", ti.getThreadState().name());
            }
            m.put("cpuPercent", u.percent);
            m.put("cpuTimeMs", u.cpuNanos / 1_000_000);
            data.add(m);
        }
        emit(ctx, sb.toString().stripTrailing(), Map.of("intervalMs", interval, "threads", data));
    }

    private void one(CommandContext ctx, String idText) throws CommandException {
        long id;
        try {
            id = Long.parseLong(idText);
        } catch (NumberFormatException e) {
            throw new CommandException("thread: '" + idText + "' is not a thread id (see 'help thread')");
        }
        ThreadInfo info = dumpWithLocks().get(id);
        if (info == null) {
            throw new CommandException("thread: no live thread with id " + id);
        }
        emit(ctx, StackRenderer.render(info, Integer.MAX_VALUE).stripTrailing(), StackRenderer.data(info, Integer.MAX_VALUE));
    }

    /**
     * Every thread with its stack and held locks, by id. Deliberately dumpAllThreads rather than
     * getThreadInfo(ids, true, true): measured on JDK 17, the latter kept the agent's class loader
     * reachable after detach (no heap path; held inside the VM), so each attach leaked it.
     */
    private static Map<Long, ThreadInfo> dumpWithLocks() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, ThreadInfo> byId = new java.util.HashMap<>();
        for (ThreadInfo ti : mx.dumpAllThreads(mx.isObjectMonitorUsageSupported(), mx.isSynchronizerUsageSupported())) {
            byId.put(ti.getThreadId(), ti);
        }
        return byId;
    }

    private void blocking(CommandContext ctx) {
        List<LockContention.Contended> locks = LockContention.find();
        // A deadlock never resolves on its own: it goes first, whatever the waiter counts say.
        List<String> deadlock = new ArrayList<>();
        for (ThreadInfo ti : LockContention.deadlocked()) {
            if (ti != null) {
                deadlock.add("\"" + ti.getThreadName() + "\" Id=" + ti.getThreadId() + " waits for " + ti.getLockName()
                        + " held by \"" + ti.getLockOwnerName() + "\"");
            }
        }
        StringBuilder sb = new StringBuilder();
        if (!deadlock.isEmpty()) {
            sb.append("DEADLOCK between ").append(deadlock.size()).append(" threads:\n");
            deadlock.forEach(d -> sb.append("    ").append(d).append('\n'));
            sb.append('\n');
        }
        if (locks.isEmpty()) {
            sb.append("no thread holds a lock that other threads are waiting for");
            emit(ctx, sb.toString(), Map.of("deadlock", deadlock, "locks", List.of()));
            return;
        }
        List<Map<String, Object>> data = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            LockContention.Contended c = locks.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("lock", c.lock.toString());
            m.put("kind", c.kind);
            m.put("owner", StackRenderer.data(c.owner, MAX_FRAMES));
            List<Map<String, Object>> waiters = new ArrayList<>();
            for (ThreadInfo w : c.waiters) {
                Map<String, Object> wm = new LinkedHashMap<>();
                wm.put("id", w.getThreadId());
                wm.put("name", w.getThreadName());
                wm.put("state", w.getThreadState().name());
                waiters.add(wm);
            }
            m.put("waiters", waiters);
            data.add(m);
            if (i == 0) {
                sb.append("\"").append(c.owner.getThreadName()).append("\" Id=").append(c.owner.getThreadId())
                        .append(" holds ").append(c.kind).append(' ').append(c.lock).append(", blocking ")
                        .append(c.waiters.size()).append(" thread(s)\n\n")
                        .append(StackRenderer.render(c.owner, MAX_FRAMES)).append("\nwaiting for it:\n");
                for (ThreadInfo w : c.waiters) {
                    sb.append("    \"").append(w.getThreadName()).append("\" Id=").append(w.getThreadId()).append(' ')
                            .append(w.getThreadState()).append(w.getStackTrace().length > 0 ? " at " + w.getStackTrace()[0] : "").append('\n');
                }
            } else {
                if (i == 1) {
                    sb.append("\nother contended locks:\n");
                }
                sb.append("    ").append(c.kind).append(' ').append(c.lock).append(" held by \"").append(c.owner.getThreadName())
                        .append("\" Id=").append(c.owner.getThreadId()).append(", ").append(c.waiters.size()).append(" waiting\n");
            }
        }
        emit(ctx, sb.toString().stripTrailing(), Map.of("deadlock", deadlock, "locks", data));
    }

    private static void emit(CommandContext ctx, String text, Object data) {
        if (ctx.json()) {
            ctx.data(data);
        } else {
            ctx.println(text);
        }
    }
}
