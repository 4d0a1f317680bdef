package io.culprit.load.internal;

import io.culprit.load.RateSchedule;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

/**
 * One event loop's share of the load. Everything here runs on that loop, so no field is shared.
 *
 * <p>Open model: this worker owns requests k = index, index + stride, ... of the schedule. Request
 * k is due at {@code schedule.offsetNanos(k)}; when it is due and no connection is idle it waits
 * (its latency clock already running from the intended time) and the pool opens another connection
 * up to its cap. Because pending requests are just the range [nextJ, dueJ), queueing allocates
 * nothing. Closed model: each connection sends its next request as soon as the previous answers.
 */
final class Worker {

    private final Run run;
    final Metrics metrics;
    private final EventLoop loop;
    private final int index;
    private final int maxConnections;
    private final Bootstrap bootstrap;
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final List<Connection> all = new ArrayList<>();
    private int open;
    private int connecting;
    private boolean stopped;
    /** Requests on the wire; counted here, on the loop, so the hot path touches no shared counter. */
    private int inflight;
    private boolean started;
    private int preopenLeft;
    private Promise<Void> preopenDone;
    private ScheduledFuture<?> wake;
    private ScheduledFuture<?> sweep;
    // Open model: this worker's j-th request is schedule request index + j * stride.
    private final long myTotal;
    private long nextJ;
    private long dueJ;
    long unsent;

    Worker(Run run, EventLoop loop, int index, int maxConnections) {
        this.run = run;
        this.loop = loop;
        this.index = index;
        this.maxConnections = maxConnections;
        this.metrics = new Metrics(run.plan.requests().size());
        this.myTotal = run.schedule == null ? 0
                : Math.max(0, (run.totalRequests - index + run.stride - 1) / run.stride);
        this.bootstrap = new Bootstrap().group(loop).channel(Transport.channel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, run.timeoutNanos / 1_000_000))
                .remoteAddress(run.address);
    }

    /**
     * Opens {@code n} connections before the clock starts, so the first requests do not pay for
     * connection setup; completes when every attempt has succeeded or failed.
     */
    Future<Void> preopen(int n) {
        Promise<Void> done = loop.newPromise();
        loop.execute(() -> {
            preopenLeft = n;
            preopenDone = done;
            for (int i = 0; i < n; i++) {
                connect();
            }
            if (n == 0) {
                done.setSuccess(null);
            }
        });
        return done;
    }

    /** Starts sending: the open model on its schedule, the closed model on every connection. */
    void begin() {
        loop.execute(() -> {
            started = true;
            long period = Math.max(1_000_000, Math.min(100_000_000, run.timeoutNanos / 4));
            sweep = loop.scheduleAtFixedRate(this::sweepTimeouts, period, period, TimeUnit.NANOSECONDS);
            if (run.schedule != null) {
                dispatch();
            } else {
                for (Connection c; (c = idle.poll()) != null; ) {
                    sendNow(c);
                }
                while (open < maxConnections) {
                    connect();
                }
            }
        });
    }

    private void preopened() {
        if (preopenDone != null && --preopenLeft == 0) {
            preopenDone.setSuccess(null);
            preopenDone = null;
        }
    }

    /** {requests on the wire, requests due but waiting for a connection}, read on the loop. */
    long[] gauges() {
        return loop.submit(() -> new long[] {inflight, dueJ - nextJ}).syncUninterruptibly().getNow();
    }

    /** Runs {@code task} on this worker's loop and waits for it. */
    void loopExecute(Runnable task) {
        loop.submit(task).syncUninterruptibly();
    }

    /** Stops sending; connections in flight finish (the drain), idle ones close now. */
    void stop() {
        if (wake != null) {
            wake.cancel(false);
        }
        if (run.schedule != null) {
            // Catch up on requests that fell due while this loop was busy, if a connection is idle;
            // what is left had no free connection (or, when stopped early, was not due yet).
            long now = System.nanoTime() - run.base;
            while (dueJ < myTotal && run.schedule.offsetNanos(index + dueJ * run.stride) <= now) {
                dueJ++;
            }
            for (Connection c; nextJ < dueJ && (c = idle.pollFirst()) != null; ) {
                sendScheduled(c);
            }
        }
        stopped = true;
        unsent = myTotal - nextJ;
        nextJ = dueJ = myTotal;
        for (Connection c; (c = idle.poll()) != null; ) {
            c.channel.close();
        }
        if (inflight == 0) {
            run.workerDrained();
        }
    }

    /** Closes everything, drained or not. */
    void close() {
        if (sweep != null) {
            sweep.cancel(false);
        }
        for (Connection c : new ArrayList<>(all)) {
            c.fail(Metrics.Failure.TIMEOUT);
        }
    }

    private void dispatch() {
        if (stopped) {
            return;
        }
        long now = System.nanoTime() - run.base;
        RateSchedule s = run.schedule;
        while (dueJ < myTotal && s.offsetNanos(index + dueJ * run.stride) <= now) {
            dueJ++;
        }
        pump();
        if (dueJ < myTotal) {
            long next = s.offsetNanos(index + dueJ * run.stride);
            wake = loop.schedule(this::dispatch, Math.max(0, next - now), TimeUnit.NANOSECONDS);
        }
    }

    /** Open model: give due requests to idle connections, open more if requests are waiting. */
    private void pump() {
        while (nextJ < dueJ) {
            Connection c = idle.pollFirst();
            if (c == null) {
                break;
            }
            sendScheduled(c);
        }
        while (dueJ - nextJ > connecting && open < maxConnections) {
            connect();
        }
    }

    private void sendScheduled(Connection c) {
        long offset = run.schedule.offsetNanos(index + nextJ * run.stride);
        nextJ++;
        boolean measured = offset >= run.warmupNanos;
        sending(measured);
        c.send(run.requests, run.base + offset, measured);
    }

    private void sendNow(Connection c) {
        long now = System.nanoTime();
        boolean measured = now - run.base >= run.warmupNanos;
        sending(measured);
        c.send(run.requests, now, measured);
    }

    private void sending(boolean measured) {
        inflight++;
        if (measured) {
            metrics.sent();
        }
    }

    private void finished() {
        if (--inflight == 0 && stopped) {
            run.workerDrained();
        }
    }

    private void connect() {
        open++;
        connecting++;
        Connection c = new Connection(this);
        ChannelFuture f = bootstrap.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(c.decoder(), c);
            }
        }).connect();
        c.channel = f.channel();
        f.addListener(done -> {
            connecting--;
            preopened();
            if (done.isSuccess()) {
                all.add(c);
                if (stopped) {
                    c.channel.close();
                } else if (!started) {
                    idle.addFirst(c);
                } else if (run.schedule != null) {
                    idle.addFirst(c);
                    pump();
                } else {
                    sendNow(c);
                }
            } else {
                open--;
                connectFailed();
            }
        });
    }

    private void connectFailed() {
        boolean measured = System.nanoTime() - run.base >= run.warmupNanos;
        if (stopped || !started) {
            // Before the clock starts a failed pre-open costs nothing: the pool opens on demand later.
            return;
        }
        if (run.schedule != null) {
            // The request that was waiting for this connection fails with it; the rest try again.
            if (nextJ < dueJ) {
                long offset = run.schedule.offsetNanos(index + nextJ * run.stride);
                nextJ++;
                if (offset >= run.warmupNanos) {
                    metrics.failure(-1, Metrics.Failure.CONNECT);
                }
            }
            pump();
        } else {
            if (measured) {
                metrics.failure(-1, Metrics.Failure.CONNECT);
            }
            // A refused connection fails in microseconds; back off so a dead target is not a busy loop.
            loop.schedule(this::connect, 50, TimeUnit.MILLISECONDS);
        }
    }

    void completed(Connection c, int status, long now, boolean keepAlive, long bodyBytes) {
        if (c.measured) {
            metrics.response(c.requestIndex, status, now - c.intendedNanos, now - c.sentNanos);
            metrics.body(bodyBytes);
        }
        finished();
        if (!keepAlive) {
            // A server may drop the connection after an error (Tomcat does after 500 and 503): only
            // closes after a success say that it refuses keep-alive.
            if (c.measured && status < 400) {
                metrics.closedByServer();
            }
            c.channel.close();
            return;
        }
        if (stopped) {
            c.channel.close();
        } else if (run.schedule == null) {
            sendNow(c);
        } else if (nextJ < dueJ) {
            sendScheduled(c);
        } else {
            idle.addFirst(c);
        }
    }

    void failed(Connection c, Metrics.Failure kind) {
        if (c.measured) {
            metrics.failure(c.requestIndex, kind);
        }
        finished();
    }

    void closed(Connection c) {
        if (all.remove(c)) {
            open--;
            idle.remove(c);
            if (!stopped && started) {
                if (run.schedule == null) {
                    connect();
                } else {
                    pump();
                }
            }
        }
    }

    private void sweepTimeouts() {
        long now = System.nanoTime();
        for (int i = all.size() - 1; i >= 0; i--) {
            Connection c = all.get(i);
            if (c.inFlight && now - c.sentNanos > run.timeoutNanos) {
                c.fail(Metrics.Failure.TIMEOUT);
            }
        }
    }
}
