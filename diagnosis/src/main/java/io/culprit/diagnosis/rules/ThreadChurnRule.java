package io.culprit.diagnosis.rules;

import io.culprit.diagnosis.Evidence;
import io.culprit.diagnosis.Fmt;
import io.culprit.diagnosis.Frames;
import io.culprit.diagnosis.Numbers;
import io.culprit.diagnosis.Rule;
import io.culprit.model.Finding;
import io.culprit.model.Severity;
import io.culprit.model.Table;
import java.util.List;
import java.util.Optional;

/**
 * Threads started per request ({@code thread-starts}, from {@code jdk.ThreadStart} with the
 * starter's stack). Pools exist so that a service under steady load starts no threads; one that
 * starts a thread per call pays the OS's thread creation each time, in the request's own time, and
 * what built the thread often costs more: a JDK {@code HttpClient} built per call also opens a new
 * connection per call and allocates its own buffers, an executor built per call and never shut
 * down leaks its threads. A service outside the lab that built an {@code HttpClient} per request
 * read as GC pressure ("G1 heap sizing"), and one that started a thread per request as a CPU
 * hotspot with the advice for quadratic lookups.
 */
public final class ThreadChurnRule implements Rule {
    /** A thread per twenty requests is a pool that does not pool; below that, growth or keep-alive expiry. */
    static final double PER_REQUEST_WARN = 0.05;
    /** One per two requests is one per request: JFR's window and the load's differ. */
    static final double PER_REQUEST_CRITICAL = 0.5;
    /** Starts below this many in the run are a pool growing to its size, not churn. */
    static final long MIN_STARTS = 20;
    /** Thread creation in this share of CPU samples is what a hot method computes. */
    static final double EXPLAINS_HOTSPOT_SHARE = 0.05;

    /**
     * What started the threads, read from the starter's stack: each has its own cure. The per-task
     * executor first: a thread it starts is its own, whoever's completion asked for it (the JDK
     * HttpClient's sendAsync completes every response through it).
     */
    enum Starter {
        PER_TASK("CompletableFuture's async steps without an executor: with a common pool of fewer than 2 threads (2"
                + " CPUs or fewer) the JDK starts a thread per task",
                "Pass an executor sized for the work to supplyAsync/runAsync (and the *Async steps), or raise"
                + " -Djava.util.concurrent.ForkJoinPool.common.parallelism.",
                "java.util.concurrent.CompletableFuture$ThreadPerTaskExecutor."),
        HTTP_CLIENT("a new java.net.http.HttpClient per call: each starts its own selector thread and worker pool and keeps"
                + " its own connection pool, so no connection is reused",
                "Build one HttpClient and share it (it is thread-safe and pools its connections); close the ones built"
                + " per call until then.",
                "jdk.internal.net.http.", "java.net.http.HttpClient.newHttpClient"),
        NETTY_CLIENT("a client built per call that brings its own Netty event loops and timer (Lettuce's RedisClient and"
                + " its ClientResources, a Reactor Netty HttpClient with loop resources of its own, a gRPC ManagedChannel):"
                + " each call starts those threads, opens a connection, and shuts them all down again",
                "Build the client once and share it: a Lettuce RedisClient and its connection are thread-safe and meant to"
                + " live as long as the application (Spring Boot's auto-configured connection factory and RedisTemplate"
                + " already are one); likewise one WebClient or HttpClient, and one ManagedChannel per target. Until"
                + " then, shut down every client built per call.",
                "io.netty.util.concurrent.ThreadPerTaskExecutor.", "io.netty.util.concurrent.SingleThreadEventExecutor.doStartThread",
                "io.netty.util.HashedWheelTimer.start"),
        TIMER("a new java.util.Timer per call: each starts its own thread, which lives until the timer is cancelled",
                "Share one ScheduledExecutorService (or the framework's scheduler) for delayed work, and cancel what you schedule.",
                "java.util.Timer.<init>"),
        SPRING_SIMPLE_ASYNC("Spring's SimpleAsyncTaskExecutor, which starts a new thread for every task",
                "Give @Async and the code that submits a ThreadPoolTaskExecutor (Spring Boot's auto-configured one, sized"
                + " with spring.task.execution.pool.*) instead of a SimpleAsyncTaskExecutor; on JDK 21+ its virtual"
                + " threads (spring.threads.virtual.enabled=true) are cheap to start.",
                "org.springframework.core.task.SimpleAsyncTaskExecutor."),
        FORK_JOIN("a fork-join pool adding spare workers because its tasks block (join or get inside a task, a ManagedBlocker)",
                "Do not block inside the pool's tasks: compose them (thenCombine, allOf) or give blocking work a pool of its own.",
                "java.util.concurrent.ForkJoinPool.createWorker", "java.util.concurrent.ForkJoinPool.tryCompensate"),
        EXECUTOR("a thread pool whose workers keep being replaced: a new executor per call, or core threads that time out",
                "Build the executor once and share it (shut down the ones built per call: their threads leak otherwise);"
                + " keep core threads alive (no allowCoreThreadTimeOut, a keep-alive longer than the gaps between tasks).",
                "java.util.concurrent.ThreadPoolExecutor.addWorker"),
        THREAD("a new thread started per call",
                "Run the work on a shared pool (an ExecutorService built once), or on JDK 21+ as a virtual thread;"
                + " do it inline when the caller waits for it anyway.");

        final String what;
        final String fix;
        private final String[] frames;

        Starter(String what, String fix, String... frames) {
            this.what = what;
            this.fix = fix;
            this.frames = frames;
        }

        static Starter of(List<String> stack) {
            for (Starter s : values()) {
                for (String f : stack) if (Frames.startsWithAny(f, s.frames)) return s;
            }
            return THREAD;
        }
    }

    @Override public String id() { return "thread-churn"; }
    @Override public String title() { return "Threads started per request (no pooling)"; }

    @Override
    public Finding evaluate(Evidence ev) {
        Optional<Table> table = ev.table("thread-starts");
        if (table.isEmpty()) return notAssessed("no table thread-starts");
        Table t = table.get();
        long total = 0;
        int top = -1;
        for (int i = 0; i < t.rows().size(); i++) {
            long c = (long) t.number(i, "count");
            total += c;
            if (top < 0 || c > t.number(top, "count")) top = i;
        }
        double requests = ev.requestCount();
        double perRequest = requests > 0 ? total / requests : Double.NaN;
        Numbers n = new Numbers();
        String ref = "tables/thread-starts";
        if (top < 0 || total < MIN_STARTS || !(perRequest >= PER_REQUEST_WARN)) {
            String rate = !Double.isFinite(perRequest) || total == 0 ? "" : perRequest < 0.001 ? ", under 0.001 per request"
                    : ", " + Fmt.num(perRequest) + " per request";
            return finding(Severity.OK).evidence(ref).summary((total == 0 ? "no thread started in the run"
                    : n.tag(Fmt.num(total), ref) + " thread(s) started in the run" + rate)
                    + (ev.onVirtualThreads() ? "; the container runs requests on virtual threads, one each, cheap to start"
                    + " and not counted here." : ": threads are pooled."))
                    .numbers(n.refs()).build();
        }
        String row = ref + "#" + top;
        List<String> stack = Evidence.stack(t, top, "stack");
        Starter starter = Starter.of(stack);
        String site = applicationSite(t, top);
        long families = (long) t.number(top, "families");
        long count = (long) t.number(top, "count");
        // A pool number per start is a new executor per call; few pools, the same pool's workers replaced.
        boolean poolPerCall = starter == Starter.EXECUTOR && families * 2 >= count;
        // The JDK HttpClient's sendAsync hands each response to the default async executor, which no
        // executor given to the client replaces (HttpClientImpl's ASYNC_POOL): a thread per call on 2 CPUs or fewer.
        boolean clientAsync = starter == Starter.PER_TASK && stack.stream().anyMatch(f -> f.startsWith("jdk.internal.net.http."));
        String what = poolPerCall ? "a new executor per call, each with its own threads"
                : clientAsync ? starter.what + ": here the JDK HttpClient's sendAsync, which completes every response"
                + " through that executor (Spring's RestClient and RestTemplate on the JDK client send this way)"
                : starter.what;
        double startShare = ev.cpuShare(f -> f.startsWith("java.lang.Thread.start"));
        // A thread per request is critical when it costs: its start in the CPU profile, or what is built
        // with it (a client, a pool, a timer per call). A cheap one is waste, not what slows the service.
        boolean costly = !Double.isFinite(startShare) || startShare >= EXPLAINS_HOTSPOT_SHARE || poolPerCall
                || starter == Starter.HTTP_CLIENT || starter == Starter.TIMER;
        Severity sev = perRequest >= PER_REQUEST_CRITICAL && costly ? Severity.CRITICAL : Severity.WARN;
        Finding.Builder b = finding(sev).evidence(row)
                .score(Math.max(sev == Severity.CRITICAL ? 0.7 : 0.4, Double.isFinite(startShare) ? startShare : 0))
                .culprit(site)
                .summary(n.tag(Fmt.num(perRequest), ref) + " thread(s) started per request (" + n.tag(Fmt.num(total), ref) + " in the run);"
                        + " most " + t.text(top, "group") + ", " + n.tag(Fmt.num(count), row) + " started by " + Frames.shortName(site)
                        + (t.number(top, "requestPath") > 0 ? " on the request path" : "")
                        + (poolPerCall ? ", in " + n.tag(Fmt.num(families), row) + " distinct pools" : "")
                        + ": " + what
                        + (Double.isFinite(startShare) && startShare >= 0.01 ? "; Thread.start in " + n.tag(Fmt.pct(startShare), ev.cpuRef())
                        + " of CPU samples" : "") + ".")
                .explanation("A thread is an OS thread: creating one maps and touches a stack and costs tens of microseconds of"
                        + " CPU, and whatever was built around it (a client, a pool, a timer) is built again with it. Pools exist"
                        + " so that a service under steady load starts none; here every request pays it, and threads that are"
                        + " never shut down pile up.")
                .fix(clientAsync ? "Raise -Djava.util.concurrent.ForkJoinPool.common.parallelism to 2 or more, so that the"
                        + " JDK's default async executor is the common pool instead of a new thread per task (an executor given"
                        + " to the HttpClient does not replace it), or make blocking calls with HttpClient.send."
                        : starter.fix)
                .confirm(ev.confirm(site.equals("?") ? "thread" : "trace " + Frames.classAndMethod(site) + " -n 3"))
                .numbers(n.refs())
                .explains("tail-latency").explains("thread-oversubscription");
        if (startShare >= EXPLAINS_HOTSPOT_SHARE) b.explains("cpu-hotspot").explains("cpu-saturation");
        if ((starter == Starter.HTTP_CLIENT || poolPerCall) && allocatesAt(ev, site)) b.explains("gc-pressure");
        return b.build();
    }

    /**
     * Who to change: the first application frame of the top row's starter stack, else of another
     * row's (a JDK client's worker threads are started by its own code, its selector by the caller
     * that built it), else the row's site.
     */
    private static String applicationSite(Table t, int top) {
        for (int i = -1; i < t.rows().size(); i++) {
            for (String f : Evidence.stack(t, i < 0 ? top : i, "stack")) {
                if (Frames.isApplication(f)) return f;
            }
        }
        String s = Evidence.text(t, top, "site");
        return s.isEmpty() ? "?" : s;
    }

    /** True when the top allocation site is the method that starts the threads: what it builds is what the GC collects. */
    private static boolean allocatesAt(Evidence ev, String site) {
        return GcPressureRule.allocationSites(ev).map(a -> Evidence.text(a, 0, "site").startsWith(Frames.stripLine(site))).orElse(false);
    }

}
