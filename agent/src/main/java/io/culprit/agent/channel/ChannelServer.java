package io.culprit.agent.channel;

import io.culprit.agent.internal.AgentLog;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The control channel: loopback only, an ephemeral port, one daemon accept thread
 * ({@code culprit-accept}) and a small bounded pool ({@code culprit-worker-N}) whose threads
 * exit when idle, so an idle agent costs the target one parked thread.
 */
public final class ChannelServer {
    // Two threads per running command (reader + runner): at most 8 commands at once.
    private static final int MAX_THREADS = 16;
    private static final long IDLE_SECONDS = 10;

    private final AgentLog log;
    private final TokenCheck tokens;
    private final CommandRegistry registry;
    private final Instrumentation inst;
    private final Set<Session> sessions = ConcurrentHashMap.newKeySet();
    // The pool's threads, so close() can join them: a terminated pool's last worker may still be
    // alive for a moment after awaitTermination returns, and detach promises no thread left.
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private ServerSocket serverSocket;
    private ThreadPoolExecutor pool;
    private Thread acceptThread;

    public ChannelServer(AgentLog log, TokenCheck tokens, CommandRegistry registry, Instrumentation inst) {
        this.log = log;
        this.tokens = tokens;
        this.registry = registry;
        this.inst = inst;
    }

    /**
     * Binds and starts accepting. {@code reattach} answers a later attach to this JVM (see
     * AgentLauncher): the accept thread is where the launcher finds it.
     *
     * @return the port
     */
    public int start(Predicate<String> reattach) throws IOException {
        // 127.0.0.1 exactly, as documented: getLoopbackAddress() may be ::1 in a target that prefers IPv6.
        serverSocket = new ServerSocket(0, 50, InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1}));
        ClassLoader agentLoader = ChannelServer.class.getClassLoader();
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(0, MAX_THREADS, IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "culprit-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            t.setContextClassLoader(agentLoader);
            workers.removeIf(w -> !w.isAlive()); // idle workers exit after IDLE_SECONDS
            workers.add(t);
            return t;
        });
        acceptThread = new AcceptThread(this::acceptLoop, reattach);
        acceptThread.setContextClassLoader(agentLoader);
        acceptThread.start();
        return serverSocket.getLocalPort();
    }

    private void acceptLoop() {
        while (!serverSocket.isClosed()) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (!serverSocket.isClosed()) {
                    log.error("accept failed", e);
                    backOff(); // e.g. out of file descriptors: do not spin and flood the log
                }
                continue;
            }
            Session session = new Session(socket, this);
            sessions.add(session);
            try {
                pool.execute(session::serve);
            } catch (RejectedExecutionException e) {
                session.rejectBusy(); // saturated or shutting down
            }
        }
    }

    private static void backOff() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops accepting, cancels every command except the one running on {@code exempt} (the
     * {@code stop} command, which must still send its answer), and waits for the pool to end.
     */
    public void close(Thread exempt) throws InterruptedException {
        try {
            serverSocket.close();
        } catch (IOException e) {
            log.error("closing the server socket", e);
        }
        for (Session s : sessions) {
            s.closeIfNoCommand();
            if (!s.isRunning(exempt)) {
                s.cancel();
            }
        }
        pool.shutdown();
        if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
            // A command that ignores interrupts: cut its connection so its reader ends too.
            log.info("commands still running after 5 s; closing their connections");
            for (Session s : sessions) {
                s.close();
            }
            pool.shutdownNow();
            pool.awaitTermination(2, TimeUnit.SECONDS);
        }
        for (Thread w : workers) {
            w.join(1000);
        }
        acceptThread.join(2000);
    }

    void forget(Session s) {
        sessions.remove(s);
    }

    AgentLog log() {
        return log;
    }

    TokenCheck tokens() {
        return tokens;
    }

    CommandRegistry registry() {
        return registry;
    }

    ExecutorService pool() {
        return pool;
    }

    Instrumentation instrumentation() {
        return inst;
    }

    /** Named so AgentLauncher can find a live agent; a Predicate because both loaders know that type. */
    private static final class AcceptThread extends Thread implements Predicate<String> {
        private final Predicate<String> reattach;

        AcceptThread(Runnable loop, Predicate<String> reattach) {
            super(loop, "culprit-accept");
            this.reattach = reattach;
            setDaemon(true);
        }

        @Override
        public boolean test(String args) {
            return reattach.test(args);
        }
    }
}
