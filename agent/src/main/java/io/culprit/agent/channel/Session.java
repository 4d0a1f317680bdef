package io.culprit.agent.channel;

import io.culprit.agent.command.Command;
import io.culprit.agent.command.CommandContext;
import io.culprit.agent.command.CommandException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * One connection = one command. A pool thread reads the request and checks the token, hands the
 * command to a second pool thread, then keeps reading so that {@code {"cancel":true}} or a
 * closed connection cancels the command at once (interrupt + its onCancel hooks).
 */
final class Session implements CommandContext {
    private static final int MAX_LINE = 64 * 1024;
    // A client that connects and says nothing must not hold a thread for long.
    private static final int REQUEST_TIMEOUT_MS = 10_000;

    private final Socket socket;
    private final ChannelServer server;
    private final Object writeLock = new Object();
    private final List<Runnable> cleanups = new ArrayList<>();
    private OutputStream out;
    private Request request;
    private volatile boolean cancelled;
    private boolean done;
    private boolean handedOver;
    private Thread runner;

    Session(Socket socket, ChannelServer server) {
        this.socket = socket;
        this.server = server;
    }

    /** Runs on a pool thread until the connection closes. */
    void serve() {
        try {
            out = new BufferedOutputStream(socket.getOutputStream());
            LineReader reader = new LineReader(new BufferedInputStream(socket.getInputStream()), MAX_LINE);
            socket.setSoTimeout(REQUEST_TIMEOUT_MS);
            String first = reader.readLine();
            if (first == null) {
                // A bare connect-and-close: the CLI's "is the port alive?" probe. Nothing to refuse.
                server.log().info("connection from " + socket.getRemoteSocketAddress() + " closed without a request");
                return;
            }
            request = Request.parse(first);
            if (request == null || !server.tokens().accepts(request.token)) {
                server.log().info("refused connection from " + socket.getRemoteSocketAddress() + ": bad token");
                finish(Messages.REFUSED, "refused: bad token");
                return;
            }
            if (request.cmd == null) {
                finish(Messages.BAD_INPUT, "bad request: no \"cmd\"");
                return;
            }
            socket.setSoTimeout(0);
            synchronized (this) {
                handedOver = true;
            }
            try {
                server.pool().execute(this::runCommand);
            } catch (RejectedExecutionException e) {
                finish(Messages.FAILED, "agent busy: too many commands running, try again");
                return;
            }
            String line;
            while ((line = reader.readLine()) != null) {
                if (Request.isCancel(line)) {
                    cancel();
                }
            }
            cancel(); // end of stream: the client went away
        } catch (java.net.SocketTimeoutException e) {
            server.log().info("closed connection from " + socket.getRemoteSocketAddress() + ": no request within "
                    + REQUEST_TIMEOUT_MS / 1000 + " s");
        } catch (IOException e) {
            cancel(); // reset, or closed by finish(): cancel is a no-op once done
        } finally {
            if (request == null || request.cmd == null) {
                close();
            }
        }
    }

    private void runCommand() {
        synchronized (this) {
            runner = Thread.currentThread();
        }
        long started = System.nanoTime();
        int code = Messages.OK;
        String error = null;
        String name = "?";
        try {
            if (cancelled) {
                return; // cancelled before a thread was free to run it
            }
            List<String> words = CommandLineSplitter.split(request.cmd);
            if (words.isEmpty()) {
                throw new CommandException("empty command (try help)");
            }
            name = words.get(0);
            Command command = server.registry().get(name);
            if (command == null) {
                throw new CommandException("unknown command '" + name + "' (try help)");
            }
            List<String> args = words.subList(1, words.size());
            Command help = server.registry().get("help");
            if (help != null && args.size() == 1 && (args.get(0).equals("-h") || args.get(0).equals("--help"))) {
                help.run(List.of(name), this);  // 'trace -h', as Arthas users type it
            } else {
                command.run(args, this);
            }
        } catch (CommandException e) {
            code = Messages.BAD_INPUT;
            error = e.getMessage();
        } catch (Throwable t) {
            if (!cancelled) {
                server.log().error("command '" + request.cmd + "' failed", t);
                code = Messages.FAILED;
                error = name + " failed: " + oneLine(t);
            }
        } finally {
            synchronized (this) {
                done = true;
                runner = null;
            }
            Thread.interrupted(); // the pool thread must not carry our interrupt into its next task
            runCleanups();
        }
        if (cancelled && error == null) {
            code = Messages.FAILED;
            error = "cancelled";
        }
        // An audit trail of what was run inside the target (never the token).
        server.log().info("ran '" + request.cmd + "' -> " + code + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
        finish(code, error);
    }

    /** No thread free to even read the request: say so (a few bytes, never blocks) and hang up. */
    void rejectBusy() {
        try {
            out = new BufferedOutputStream(socket.getOutputStream());
        } catch (IOException e) {
            close();
            return;
        }
        finish(Messages.FAILED, "agent busy: too many commands running, try again");
    }

    /** Ctrl-C, disconnect or detach. Idempotent; a no-op once the command has finished. */
    void cancel() {
        synchronized (this) {
            if (done || cancelled) {
                return;
            }
            cancelled = true;
            if (runner != null) {
                runner.interrupt();
            }
        }
        runCleanups();
    }

    /** At detach: a connection still waiting for its request line is simply closed. */
    void closeIfNoCommand() {
        synchronized (this) {
            if (handedOver) {
                return;
            }
        }
        close();
    }

    synchronized boolean isRunning(Thread thread) {
        return runner == thread;
    }

    private void runCleanups() {
        List<Runnable> todo;
        synchronized (cleanups) {
            todo = new ArrayList<>(cleanups);
            cleanups.clear();
        }
        for (Runnable r : todo) {
            try {
                r.run();
            } catch (Throwable t) {
                server.log().error("cleanup of '" + (request == null ? "?" : request.cmd) + "' failed", t);
            }
        }
    }

    private void finish(int code, String error) {
        if (error != null) {
            send(Messages.err(error));
        }
        send(Messages.end(code));
        close();
    }

    void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
        server.forget(this);
    }

    private void send(String line) {
        synchronized (writeLock) {
            if (out == null || socket.isClosed()) {
                return;
            }
            try {
                out.write(line.getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                cancel(); // the client is gone: stop producing output for nobody
            }
        }
    }

    private static String oneLine(Throwable t) {
        String msg = t.getMessage();
        String text = t.getClass().getName() + (msg == null ? "" : ": " + msg);
        return text.replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    // --- CommandContext ---

    @Override
    public boolean json() {
        return request.json;
    }

    @Override
    public int width() {
        return request.width;
    }

    @Override
    public void println(String text) {
        send(Messages.out(text));
    }

    @Override
    public void data(Object value) {
        if (request.json) {
            send(Messages.data(value));
        }
    }

    @Override
    public boolean cancelled() {
        return cancelled;
    }

    @Override
    public void onCancel(Runnable cleanup) {
        synchronized (cleanups) {
            cleanups.add(cleanup);
        }
    }

    @Override
    public Instrumentation instrumentation() {
        return server.instrumentation();
    }
}
