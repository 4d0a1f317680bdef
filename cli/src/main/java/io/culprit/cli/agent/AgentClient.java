package io.culprit.cli.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The CLI's side of the control channel: makes sure an agent runs in the target (reusing a live
 * one, else loading it through the Attach API with a fresh token) and runs one command per
 * connection.
 */
public final class AgentClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long ATTACH_TIMEOUT_MS = Long.getLong("culprit.attach.timeout.ms", 15_000);

    private final long pid;
    private final int port;
    private final String token;
    private volatile Socket current;

    private AgentClient(long pid, int port, String token) {
        this.pid = pid;
        this.port = port;
        this.token = token;
    }

    public long pid() {
        return pid;
    }

    /** Connects to the agent in {@code pid}, attaching it first if none is live. */
    public static AgentClient connect(long pid) {
        return connect(pid, false);
    }

    /**
     * As {@link #connect(long)}; {@code unsafe} lets watch expressions call methods, construct
     * objects and load classes. It is fixed when the agent loads, so a live agent keeps its mode.
     */
    public static AgentClient connect(long pid, boolean unsafe) {
        Optional<RunFile> live = RunFile.read(pid).filter(r -> answers(r.port));
        if (live.isPresent()) {
            if (unsafe) System.err.println("culprit: the agent in " + pid + " is already running; --unsafe applies from the next attach (after 'stop')");
            return new AgentClient(pid, live.get().port, live.get().token);
        }
        LocalJvms.requireAttachable(pid);
        String token = newToken();
        load(pid, "token=" + token + (unsafe ? ",unsafe=true" : ""));
        RunFile rf = awaitRunFile(pid, token);
        return new AgentClient(pid, rf.port, rf.token);
    }

    /** Runs one command; frames go to {@code sink} as they arrive. Returns the agent's exit code. */
    public int run(String command, boolean json, int width, Consumer<Frame> sink) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            current = s;
            ObjectNode req = JSON.createObjectNode().put("token", token).put("cmd", command).put("json", json).put("width", width);
            OutputStream out = s.getOutputStream();
            out.write((JSON.writeValueAsString(req) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                Frame f = Frame.parse(JSON.readTree(line));
                if (f.type == Frame.Type.END) return f.code;
                sink.accept(f);
            }
            throw new CulpritException("agent in " + pid + " closed the connection before the command ended");
        } catch (ConnectException e) {
            throw new CulpritException("agent in " + pid + " does not answer on 127.0.0.1:" + port + " (was it stopped?)");
        } catch (IOException e) {
            throw new CulpritException("lost the agent in " + pid + ": " + e.getMessage());
        } finally {
            current = null;
        }
    }

    /** Asks the agent to cancel the running command (Ctrl-C); safe from any thread. */
    public void cancel() {
        Socket s = current;
        if (s == null) return;
        try {
            s.getOutputStream().write("{\"cancel\":true}\n".getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
        } catch (IOException e) {
            // The command ended meanwhile: nothing to cancel.
        }
    }

    private static void load(long pid, String agentArgs) {
        String jar = AgentJar.locate().toString();
        // The launcher class of a JVM's first attach stays loaded in its system loader and answers
        // every later attach: told the jar, it starts this culprit's core, not the first one's.
        agentArgs += ",jar=" + java.net.URLEncoder.encode(jar, StandardCharsets.UTF_8);
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException e) {
            throw new CulpritException("JVM " + pid + " refuses attach (started with -XX:+DisableAttachMechanism, or another user's or container's JVM): " + firstLine(e), 3);
        } catch (IOException e) {
            throw new CulpritException("cannot attach to JVM " + pid + ": " + firstLine(e), 3);
        }
        long logBefore = RunFile.logSize(pid);
        try {
            vm.loadAgent(jar, agentArgs);
        } catch (AgentLoadException | IOException e) {
            throw new CulpritException("JVM " + pid + " did not load the agent: " + firstLine(e) + " (see " + RunFile.log(pid) + ")", 3);
        } catch (com.sun.tools.attach.AgentInitializationException e) {
            // The agent logs why before it gives up: say it here, on the one line.
            String why = RunFile.errorSince(pid, logBefore).map(m -> ": " + m).orElse(" (code " + e.returnValue() + ")");
            throw new CulpritException("the agent failed to start in JVM " + pid + why + "; see " + RunFile.log(pid), 3);
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // The attach connection is gone already; the agent runs on its own channel.
            }
        }
    }

    private static RunFile awaitRunFile(long pid, String token) {
        long deadline = System.currentTimeMillis() + ATTACH_TIMEOUT_MS;
        while (System.currentTimeMillis() < deadline) {
            Optional<RunFile> rf = RunFile.read(pid);
            // An agent already live from -javaagent keeps its own token; take whatever it wrote.
            if (rf.isPresent() && answers(rf.get().port)) return rf.get();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new CulpritException("the agent in JVM " + pid + " did not open its channel within " + ATTACH_TIMEOUT_MS + " ms; see " + RunFile.log(pid), 3);
    }

    private static boolean answers(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String newToken() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x));
        return sb.toString();
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
