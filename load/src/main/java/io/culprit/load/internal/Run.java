package io.culprit.load.internal;

import io.culprit.load.LoadException;
import io.culprit.load.LoadListener;
import io.culprit.load.LoadPlan;
import io.culprit.load.LoadResult;
import io.culprit.load.RateSchedule;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** One execution of a plan: the state the workers share, and the engine thread's part of the run. */
public final class Run {

    final LoadPlan plan;
    /** Open model: the full schedule, warmup first; null for the closed model. */
    final RateSchedule schedule;
    final long totalRequests;
    final long warmupNanos;
    final long timeoutNanos;
    final int stride;
    final EncodedRequests requests;
    InetSocketAddress address;
    long base;
    private Worker[] workers;
    private final AtomicInteger drainedWorkers = new AtomicInteger();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    public Run(LoadPlan plan) {
        this.plan = plan;
        this.warmupNanos = plan.warmup().toNanos();
        this.timeoutNanos = plan.timeout().toNanos();
        this.stride = plan.effectiveThreads();
        this.schedule = plan.model() == LoadPlan.Model.OPEN ? plan.schedule().withWarmup(plan.warmup()) : null;
        this.totalRequests = schedule == null ? 0 : schedule.totalRequests();
        this.requests = new EncodedRequests(plan.requests());
    }

    public LoadResult execute(LoadListener listener) {
        address = resolve();
        EventLoopGroup group = Transport.group(stride);
        try {
            preflight(group);
            workers = new Worker[stride];
            int c = plan.connections();
            for (int i = 0; i < stride; i++) {
                workers[i] = new Worker(this, (EventLoop) group.next(), i, c / stride + (i < c % stride ? 1 : 0));
            }
            for (int i = 0; i < stride; i++) {
                int cap = c / stride + (i < c % stride ? 1 : 0);
                workers[i].preopen(Math.min(cap, preopenPerWorker())).syncUninterruptibly();
            }
            long startEpochMs = System.currentTimeMillis();
            base = System.nanoTime();
            for (Worker w : workers) {
                w.begin();
            }
            return new WindowSampler(this, listener, startEpochMs).run();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Closed model: all connections. Open model: what the starting rate needs if responses take
     * about 10 ms (Little's law), at least one; the pool grows on demand beyond that.
     */
    private int preopenPerWorker() {
        if (schedule == null) {
            return Integer.MAX_VALUE;
        }
        double rate = schedule.rateAt(0);
        return (int) Math.max(1, Math.ceil(rate * 0.010 / stride));
    }

    /** A stopped worker has nothing left in flight; once all have, the drain is over. */
    void workerDrained() {
        if (drainedWorkers.incrementAndGet() == workers.length) {
            drained.complete(null);
        }
    }

    /** Stops sending, waits up to the request timeout for requests in flight, then closes everything. */
    long stopAndDrain() {
        for (Worker w : workers) {
            w.loopExecute(w::stop);
        }
        try {
            drained.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // Requests still in flight after the timeout are counted as timeouts by close().
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
        long unsent = 0;
        for (Worker w : workers) {
            w.loopExecute(w::close);
            unsent += w.unsent;
        }
        return unsent;
    }

    private InetSocketAddress resolve() {
        InetAddress ip;
        try {
            ip = InetAddress.getByName(plan.host());
        } catch (UnknownHostException e) {
            throw new LoadException("unknown host: " + plan.host());
        }
        if (plan.localOnly() && !ip.isLoopbackAddress()) {
            throw new LoadException("refusing non-loopback target " + plan.host() + " (" + ip.getHostAddress()
                    + ") with --local-only");
        }
        return new InetSocketAddress(ip, plan.port());
    }

    /** One connection before the clock starts, so an unreachable target is an error, not 100 % failures. */
    private void preflight(EventLoopGroup group) {
        ChannelFuture f = new Bootstrap().group(group).channel(Transport.channel())
                .handler(new ChannelInboundHandlerAdapter())
                .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, 3000)
                .connect(address).awaitUninterruptibly();
        if (!f.isSuccess()) {
            Throwable t = f.cause();
            String why = t == null ? "unknown error" : t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            // Netty appends ": /address" to the OS message, and epoll prefixes the syscall; ours names the host.
            why = why.contains(": /") ? why.substring(0, why.indexOf(": /")) : why;
            why = why.replaceFirst("^.*failed with error\\(-?\\d+\\): ", "");
            throw new LoadException("cannot connect to " + plan.host() + ":" + plan.port() + ": " + why);
        }
        f.channel().close().awaitUninterruptibly();
    }

    Worker[] workers() {
        return workers;
    }
}
