package io.culprit.bench.jmh;

import io.culprit.agent.command.Command;
import io.culprit.agent.instrument.Instrumenter;
import io.culprit.agent.instrument.MonitorCommand;
import io.culprit.agent.instrument.TraceCommand;
import io.culprit.bench.fixture.Handler;
import io.culprit.bootstrap.Bridge;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One call of {@link Handler#handle} (which calls one callee), by instrumentation state:
 * {@code none} not woven; {@code idle} woven but the Bridge reset to its no-op (bytecode left
 * behind after a detach); {@code monitor} counting into HdrHistogram; {@code trace} timing the
 * root and its call site (two clock reads: the call is adjacent to the root's start and return,
 * so each read serves two timing points), with a condition that never matches so no tree is captured;
 * {@code trace-skip} the same without a condition, after its first records: the client is
 * "behind" (--rate 1), so each call is timed and then skipped, as most calls are under load.
 * Run with {@code -prof gc} for B/op.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+EnableDynamicAgentLoading", "-Djdk.attach.allowAttachSelf=true"})
public class InstrumentedCallBenchmark {

    @Param({"none", "idle", "monitor", "trace", "trace-skip"})
    public String mode;

    private final Handler handler = new Handler();
    private BenchContext ctx;
    private Thread runner;
    private int x;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if (mode.equals("none")) {
            return;
        }
        Instrumentation inst = ByteBuddyAgent.install();
        ctx = new BenchContext(inst);
        String cls = Handler.class.getName();
        // The breakers are lifted: the benchmark calls the method tens of millions of times a
        // second, and in a tight loop the woven code is most of the process's CPU.
        List<String> lifted = List.of("--budget", "9000000000000", "--cpu-budget", "100");
        Command command = mode.startsWith("trace") ? new TraceCommand() : new MonitorCommand();
        List<String> args = new ArrayList<>(mode.equals("trace") ? List.of(cls, "handle", "#cost > 100000")
                : mode.equals("trace-skip") ? List.of(cls, "handle", "-n", "1000000000", "--rate", "1")
                : List.of(cls, "handle", "-c", "3600"));
        args.addAll(lifted);
        runner = new Thread(() -> {
            try {
                command.run(args, ctx);
            } catch (Exception e) {
                ctx.println("failed: " + e.getMessage());
            }
        }, "bench-command");
        runner.setDaemon(true);
        runner.start();
        if (!ctx.installed.await(30, TimeUnit.SECONDS) || !ctx.lastLine.startsWith("Press Ctrl-C")) {
            throw new IllegalStateException("command did not install: " + ctx.lastLine);
        }
        if (mode.equals("idle")) {
            Bridge.reset();  // the woven code stays; every call now reaches the no-op spy
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (ctx != null) {
            ctx.cancelled = true;
            runner.join(10_000);
            Instrumenter.resetAll();
        }
    }

    @Benchmark
    public int call() {
        return handler.handle(x++);
    }
}
